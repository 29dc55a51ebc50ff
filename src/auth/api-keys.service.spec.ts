import { Database } from '../database/database.service';
import { API_KEY_CACHE_TTL_MS, ApiKeysService, generateApiKey } from './api-keys.service';

/** A Database whose only table is one live API key; counts the lookups. */
function fakeDatabase(row: { id: string; organization_id: string; mode: string } | null) {
  const state = { lookups: 0, row };
  const manager = {
    query: () => {
      state.lookups++;
      return Promise.resolve(state.row ? [state.row] : []);
    },
    findOneBy: () =>
      Promise.resolve(
        state.row ? { id: state.row.id, createdAt: new Date(), revokedAt: null } : null,
      ),
    update: () => Promise.resolve(),
  };
  const db = {
    sql: (text: string) => text,
    read: (work: (m: unknown) => unknown) => work(manager),
    transaction: (work: (m: unknown) => unknown) => work(manager),
  } as unknown as Database;
  return { db, state };
}

describe('ApiKeysService.authenticate', () => {
  const key = generateApiKey('live');
  const row = {
    id: 'key_01JD3Y2Q6J8C4N1V9W5X7Z0KEY',
    organization_id: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ORG',
    mode: 'live',
  };
  afterEach(() => jest.useRealTimers());

  it('looks a live key up once, then answers from memory for a few seconds', async () => {
    const { db, state } = fakeDatabase(row);
    const service = new ApiKeysService(db);
    const principal = { organizationId: row.organization_id, apiKeyId: row.id, livemode: true };
    expect(await service.authenticate(key)).toEqual(principal);
    expect(await service.authenticate(key)).toEqual(principal);
    expect(service.cachedPrincipal(key)).toEqual(principal);
    expect(state.lookups).toBe(1);
  });

  it('asks the database again once the entry is older than the cache lifetime', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { db, state } = fakeDatabase(row);
    const service = new ApiKeysService(db);
    await service.authenticate(key);
    jest.setSystemTime(1_000_000 + API_KEY_CACHE_TTL_MS + 1);
    expect(service.cachedPrincipal(key)).toBeUndefined();
    state.row = null; // revoked meanwhile by another process
    expect(await service.authenticate(key)).toBeNull();
    expect(state.lookups).toBe(2);
  });

  it('forgets a key revoked through this process at once', async () => {
    const { db } = fakeDatabase(row);
    const service = new ApiKeysService(db);
    await service.authenticate(key);
    await service.revokeApiKey(row.id);
    expect(service.cachedPrincipal(key)).toBeUndefined();
  });

  it('never remembers an unknown key, so a key created a moment later works at once', async () => {
    const { db, state } = fakeDatabase(null);
    const service = new ApiKeysService(db);
    expect(await service.authenticate(key)).toBeNull();
    state.row = row;
    expect(await service.authenticate(key)).toEqual({
      organizationId: row.organization_id,
      apiKeyId: row.id,
      livemode: true,
    });
  });

  it('gives a test key the test mode', async () => {
    const { db } = fakeDatabase({ ...row, mode: 'test' });
    const service = new ApiKeysService(db);
    expect(await service.authenticate(generateApiKey('test'))).toEqual({
      organizationId: row.organization_id,
      apiKeyId: row.id,
      livemode: false,
    });
  });

  it('refuses a malformed key without any lookup', async () => {
    const { db, state } = fakeDatabase(row);
    const service = new ApiKeysService(db);
    expect(await service.authenticate('sk_live_short')).toBeNull();
    expect(service.cachedPrincipal('sk_live_short')).toBeUndefined();
    expect(state.lookups).toBe(0);
  });
});
