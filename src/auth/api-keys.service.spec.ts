import { ChangeHandler, DatabaseChangeFeed } from '../database/change-feed';
import { Database } from '../database/database';
import {
  API_KEY_CACHE_TTL_MS,
  API_KEY_UNTRUSTED_TTL_MS,
  ApiKeysService,
  generateApiKey,
} from './api-keys.service';

/** A change feed the test drives: what it hears, and whether it is trusted. */
function fakeFeed() {
  const feed = {
    trusted: true,
    handler: undefined as ChangeHandler | undefined,
    subscribe(_channel: string, handler: ChangeHandler) {
      feed.handler = handler;
    },
    announce: () => Promise.resolve(),
    catchUp: () => undefined,
  };
  return feed;
}

function serviceOn(db: Database, feed = fakeFeed()) {
  return new ApiKeysService(db, feed as unknown as DatabaseChangeFeed);
}

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
    insert: () => Promise.resolve(),
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
    const service = serviceOn(db);
    const principal = { organizationId: row.organization_id, apiKeyId: row.id, livemode: true };
    expect(await service.authenticate(key)).toEqual(principal);
    expect(await service.authenticate(key)).toEqual(principal);
    expect(service.cachedPrincipal(key)).toEqual(principal);
    expect(state.lookups).toBe(1);
  });

  it('asks the database again once the entry is older than the cache lifetime', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { db, state } = fakeDatabase(row);
    const service = serviceOn(db);
    await service.authenticate(key);
    jest.setSystemTime(1_000_000 + API_KEY_CACHE_TTL_MS + 1);
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
      organizationId: row.organization_id,
      apiKeyId: row.id,
      livemode: true,
    });
  });

  it('gives a test key the test mode', async () => {
    const { db } = fakeDatabase({ ...row, mode: 'test' });
    const service = serviceOn(db);
    expect(await service.authenticate(generateApiKey('test'))).toEqual({
      organizationId: row.organization_id,
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

  const principal = { organizationId: row.organization_id, apiKeyId: row.id, livemode: true };

  it('forgets a key at once when another instance announces its revocation', async () => {
    const { db } = fakeDatabase(row);
    const feed = fakeFeed();
    const service = serviceOn(db, feed);
    await service.authenticate(key);
    feed.handler!('key_01JD3Y2Q6J8C4N1V9W5X7Z0OTH');
    expect(service.cachedPrincipal(key)).toEqual(principal);
    feed.handler!(row.id);
    expect(service.cachedPrincipal(key)).toBeUndefined();
  });

  it('forgets every key when the feed says anything may have changed', async () => {
    const { db } = fakeDatabase(row);
    const feed = fakeFeed();
    const service = serviceOn(db, feed);
    await service.authenticate(key);
    feed.handler!(null);
    expect(service.cachedPrincipal(key)).toBeUndefined();
  });

  it('keeps entries only briefly while the feed is not trusted', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { db } = fakeDatabase(row);
    const feed = fakeFeed();
    const service = serviceOn(db, feed);
    await service.authenticate(key);
    feed.trusted = false;
    jest.setSystemTime(1_000_000 + API_KEY_UNTRUSTED_TTL_MS - 1);
    expect(service.cachedPrincipal(key)).toEqual(principal);
    jest.setSystemTime(1_000_000 + API_KEY_UNTRUSTED_TTL_MS);
    expect(service.cachedPrincipal(key)).toBeUndefined();
    feed.trusted = true;
    expect(service.cachedPrincipal(key)).toEqual(principal);
  });

  it('does not remember a lookup that a revocation overtook', async () => {
    const { db, state } = fakeDatabase(row);
    const feed = fakeFeed();
    const service = serviceOn(db, feed);
    const lookup = service.authenticate(key);
    feed.handler!(row.id); // heard while the row that says "live" was on its way
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
