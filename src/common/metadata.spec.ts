import { ValidationFailedError } from './errors';
import { mergeMetadata, sortedMetadata, validateMetadata } from './metadata';

describe('validateMetadata', () => {
  it('accepts a flat object of strings, numbers and booleans', () => {
    expect(validateMetadata({ a: 'x', b: 1, c: true })).toBeNull();
  });

  it.each([
    ['an array', []],
    ['null', null],
    ['a string', 'x'],
    ['a nested object', { a: { b: 1 } }],
    ['an array value', { a: [1] }],
    ['a null value', { a: null }],
    ['51 keys', Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]))],
    ['a 41-character key', { ['k'.repeat(41)]: 1 }],
    ['an empty key', { '': 1 }],
    ['a 501-character value', { a: 'v'.repeat(501) }],
  ])('rejects %s', (_label, value) => {
    expect(validateMetadata(value)).toEqual(expect.any(String));
  });

  it('accepts null values only where removal is allowed', () => {
    expect(validateMetadata({ a: null }, { allowNullValues: true })).toBeNull();
  });
});

describe('mergeMetadata', () => {
  it('merges key by key and removes keys set to null', () => {
    expect(mergeMetadata({ a: '1', b: '2' }, { b: null, c: 3 })).toEqual({ a: '1', c: 3 });
  });

  it('keeps everything when no patch is given and clears everything for null', () => {
    expect(mergeMetadata({ a: '1' }, undefined)).toEqual({ a: '1' });
    expect(mergeMetadata({ a: '1' }, null)).toEqual({});
  });

  it('refuses a merge that ends with more than 50 keys', () => {
    const current = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    expect(() => mergeMetadata(current, { extra: 1 })).toThrow(ValidationFailedError);
    expect(mergeMetadata(current, { extra: 1, k0: null })).toHaveProperty('extra', 1);
  });
});

describe('sortedMetadata', () => {
  it('gives the same JSON for the same keys in any order (jsonb reorders them)', () => {
    const a = sortedMetadata({ zeta: 1, alpha: 'x', '10': true, '9': 'n', Beta: 2 });
    const b = sortedMetadata({ Beta: 2, '9': 'n', alpha: 'x', '10': true, zeta: 1 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(Object.keys(a)).toEqual(['9', '10', 'Beta', 'alpha', 'zeta']);
  });

  it('returns metadata that is already in order as it is', () => {
    const inOrder = { a: 1, b: 2 };
    expect(sortedMetadata(inOrder)).toBe(inOrder);
  });
});
