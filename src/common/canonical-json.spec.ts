import fc from 'fast-check';
import { canonicalJson } from './canonical-json';

/** canonicalJson as it was first written: JSON.stringify with a replacer that sorts keys. */
function reference(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : v,
  );
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('puts index-like keys first, by value, as JavaScript objects do', () => {
    expect(canonicalJson({ b: 1, '10': 2, '9': 3, '01': 4 })).toBe('{"9":3,"10":2,"01":4,"b":1}');
  });

  it('serializes like JSON.stringify: toJSON, undefined left out, null in arrays', () => {
    const at = new Date('2026-01-31T12:00:00.000Z');
    expect(canonicalJson({ at, gone: undefined, list: [undefined, 1], n: NaN })).toBe(
      '{"at":"2026-01-31T12:00:00.000Z","list":[null,1],"n":null}',
    );
  });

  it('gives the same text as the replacer it replaces, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 500 },
    );
  });

  it('gives an absent body the empty string, unlike an empty object', () => {
    expect(canonicalJson(undefined)).toBe('');
    expect(canonicalJson({})).toBe('{}');
  });
});
