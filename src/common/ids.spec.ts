import { decodeTime } from 'ulid';
import { ID_PREFIXES, idsMadeBefore, isAnyId, isIdOf, newId } from './ids';

describe('newId', () => {
  it('makes ids of the API shape: the prefix and 26 characters of a ULID', () => {
    const id = newId(ID_PREFIXES.plan);
    expect(id).toMatch(/^plan_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(isIdOf(ID_PREFIXES.plan, id)).toBe(true);
  });

  it('never repeats and sorts later ids after earlier ones, thousands per millisecond included', () => {
    const ids = Array.from({ length: 20_000 }, () => newId(ID_PREFIXES.request));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('draws the random part of each new millisecond from all 32 characters', () => {
    const characters = new Set<string>();
    for (let ms = 0; ms < 60; ms++) {
      const start = Date.now();
      while (Date.now() === start) {
        // wait for the next millisecond: its first id gets fresh random characters
      }
      const id = newId(ID_PREFIXES.price);
      for (const c of id.slice(-16)) characters.add(c);
    }
    // 960 draws: missing one of 32 characters by chance has a probability below 1e-11.
    expect(characters.size).toBe(32);
  });
});

describe('idsMadeBefore', () => {
  it('sorts after the ids made before the time and before those made at it or later', () => {
    const before = newId(ID_PREFIXES.event);
    while (Date.now() <= decodeMs(before)) {
      // wait for a later millisecond than the first id's
    }
    const at = new Date();
    const bound = idsMadeBefore(ID_PREFIXES.event, at);
    const after = newId(ID_PREFIXES.event);
    expect(bound).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(before < bound).toBe(true);
    expect(after < bound).toBe(false);
    expect(idsMadeBefore(ID_PREFIXES.event, new Date(at.getTime() + 1)) > after).toBe(
      decodeMs(after) === at.getTime(),
    );
  });
});

/** The creation time of an id, in milliseconds since the epoch. */
function decodeMs(id: string): number {
  return decodeTime(id.slice(id.indexOf('_') + 1));
}

describe('isAnyId', () => {
  it('is true for an id of every prefix', () => {
    for (const prefix of Object.values(ID_PREFIXES)) expect(isAnyId(newId(prefix))).toBe(true);
  });

  it.each([
    'DE89370400440532013000',
    'sk_live_KfIC0123456789abcdefghijklmnopqr',
    'prod_short',
    'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC/',
    'xyz_01JD3Y2Q6J8C4N1V9W5X7Z0ABC',
    'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC_',
    42,
  ])('is false for %p', (value) => {
    expect(isAnyId(value)).toBe(false);
  });
});
