import { Database } from '../database/database';
import { API_KEY_CACHE_TTL_MS, ApiKeysService, generateApiKey } from './api-keys.service';

/** A Database whose only table is one live API key; counts the lookups by hash. */
function fakeDatabase(row: { id: string; organizationId: string; mode: string } | null) {
  const state = { lookups: 0, row };
  const manager = {
    findOneBy: (_entity: unknown, where: { keyHash?: string }) => {
      if (where.keyHash !== undefined) state.lookups++;
      return Promise.resolve(
        state.row ? { ...state.row, createdAt: new Date(), revokedAt: null } : null,
      );
    },
    update: () => Promise.resolve(),
    insert: () => Promise.resolve(),
  };
  const db = {
    read: (work: (m: unknown) => unknown) => work(manager),
    transaction: (work: (m: unknown) => unknown) => work(manager),
  } as unknown as Database;
  return { db, state };
}

const serviceOn = (db: Database) => new ApiKeysService(db);

describe('ApiKeysService.authenticate', () => {
  const key = generateApiKey('live');
  const row = {
    id: 'key_01JD3Y2Q6J8C4N1V9W5X7Z0KEY',
    organizationId: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ORG',
    mode: 'live',
  };
  const principal = { organizationId: row.organizationId, apiKeyId: row.id, livemode: true };
  afterEach(() => jest.useRealTimers());

  it('looks a live key up once, then answers from memory for up to a second', async () => {
    const { db, state } = fakeDatabase(row);
    const service = serviceOn(db);
    expect(await service.authenticate(key)).toEqual(principal);
    expect(await service.authenticate(key)).toEqual(principal);
    expect(service.cachedPrincipal(key)).toEqual(principal);
    expect(state.lookups).toBe(1);
  });

  it('asks the database again once the entry is a second old, so a revocation elsewhere holds within it', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { db, state } = fakeDatabase(row);
    const service = serviceOn(db);
    await service.authenticate(key);
    jest.setSystemTime(1_000_000 + API_KEY_CACHE_TTL_MS - 1);
    expect(service.cachedPrincipal(key)).toEqual(principal);
    jest.setSystemTime(1_000_000 + API_KEY_CACHE_TTL_MS);
    expect(service.cachedPrincipal(key)).toBeUndefined();
    state.row = null; // revoked meanwhile by another process
    expect(await service.authenticate(key)).toBeNull();
    expect(state.lookups).toBe(2);
  });

  it('forgets a key revoked through this process at once', async () => {
    const { db } = fakeDatabase(row);
    const service = serviceOn(db);
    await service.authenticate(key);
    await service.revokeApiKey(row.id);
    expect(service.cachedPrincipal(key)).toBeUndefined();
  });

  it('never remembers an unknown key, so a key created a moment later works at once', async () => {
    const { db, state } = fakeDatabase(null);
    const service = serviceOn(db);
    expect(await service.authenticate(key)).toBeNull();
    state.row = row;
    expect(await service.authenticate(key)).toEqual({
      organizationId: row.organizationId,
      apiKeyId: row.id,
      livemode: true,
    });
  });

  it('gives a test key the test mode', async () => {
    const { db } = fakeDatabase({ ...row, mode: 'test' });
    const service = serviceOn(db);
    expect(await service.authenticate(generateApiKey('test'))).toEqual({
      organizationId: row.organizationId,
      apiKeyId: row.id,
      livemode: false,
    });
  });

  it('refuses a malformed key without any lookup', async () => {
    const { db, state } = fakeDatabase(row);
    const service = serviceOn(db);
    expect(await service.authenticate('sk_live_short')).toBeNull();
    expect(service.cachedPrincipal('sk_live_short')).toBeUndefined();
    expect(state.lookups).toBe(0);
  });

  it('does not remember a lookup that a revocation overtook', async () => {
    const { db, state } = fakeDatabase(row);
    const service = serviceOn(db);
    const lookup = service.authenticate(key);
    // Revoked here while the row that says "live" was on its way.
    await service.revokeApiKey(row.id);
    expect(await lookup).toEqual(principal);
    expect(service.cachedPrincipal(key)).toBeUndefined();
    await service.authenticate(key);
    expect(state.lookups).toBe(2);
  });
});

describe('ApiKeysService.createOrganization', () => {
  const emoji = '\u{1F600}'; // one character, two UTF-16 units

  it('counts a name in characters (code points), as every other length', async () => {
    const service = serviceOn(fakeDatabase(null).db);
    await expect(service.createOrganization(emoji.repeat(200))).resolves.toMatchObject({
      name: emoji.repeat(200),
    });
    await expect(service.createOrganization(emoji.repeat(201))).rejects.toThrow();
  });

  it.each([' ', '\u200b', ' \u2060\ufeff '])(
    'refuses a blank name (%j), as names are everywhere',
    async (name) => {
      const service = serviceOn(fakeDatabase(null).db);
      await expect(service.createOrganization(name)).rejects.toMatchObject({
        errors: [
          expect.objectContaining({ field: 'name', message: expect.stringMatching(/not blank/) }),
        ],
      });
    },
  );
});
