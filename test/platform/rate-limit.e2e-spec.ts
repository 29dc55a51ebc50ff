import { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { createApp } from '../../src/app.setup';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

/**
 * Redis for the shared-store tests. `npm test` needs no service, so these run when TEST_REDIS_URL
 * is set; .ci/run always sets it and fails when Redis is unreachable. Unreachable, they fail.
 */
const REDIS_URL = process.env.TEST_REDIS_URL;
const describeWithRedis = REDIS_URL ? describe : describe.skip;
const REDIS_NOTE = REDIS_URL ? '' : ' [skipped: set TEST_REDIS_URL, as .ci/run does]';
const LIMIT = 5;

type Response = Awaited<ReturnType<ReturnType<TestApp['http']>['get']>>;

/**
 * Runs `burst` until it fits in one one-second window (a burst that straddles two windows gets
 * twice the budget, which says nothing about the limit), with a new tenant each time.
 */
async function inOneWindow<T>(t: TestApp, burst: (tenant: TestTenant) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const tenant = await t.createTenant();
    const started = Date.now();
    const result = await burst(tenant);
    if (Date.now() - started < 800 || attempt === 5) return result;
  }
}

const statuses = (responses: Response[]) => responses.map((r) => r.status).sort();

const STORES: [string, Record<string, string>][] = [['in memory', {}]];
if (REDIS_URL) STORES.push(['in Redis', { REDIS_URL }]);

describe.each(STORES)(`rate limit, counted %s (${TEST_DIALECT})`, (_store, env) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: String(LIMIT), ...env });
  });
  afterAll(() => t.close());

  it('puts RateLimit-Limit, -Remaining and -Reset on every response, errors included', async () => {
    const tenant = await t.createTenant();
    const ok = await t.http().get('/v0/products').set(tenant.auth);
    expect(ok.status).toBe(200);
    expect(ok.headers['ratelimit-limit']).toBe(String(LIMIT));
    expect(ok.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
    expect(Number(ok.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(0);
    expect(Number(ok.headers['ratelimit-reset'])).toBeLessThanOrEqual(1);
    const notFound = await t.http().get('/v0/nothing').set(tenant.auth);
    expect(notFound.status).toBe(404);
    expect(notFound.headers['ratelimit-limit']).toBe(String(LIMIT));
    const invalid = await t.http().post('/v0/products').set(tenant.auth).send({ name: '' });
    expect(invalid.status).toBe(400);
    expect(invalid.headers['ratelimit-remaining']).toBeDefined();
  });

  it('answers 429 rate_limited with Retry-After past the limit', async () => {
    const responses = await inOneWindow(t, (tenant) =>
      Promise.all(Array.from({ length: 15 }, () => t.http().get('/v0/products').set(tenant.auth))),
    );
    const limited = responses.filter((r) => r.status === 429);
    // All 15 in one window: 5 pass, 10 are refused.
    expect(statuses(responses)).toEqual([...Array(5).fill(200), ...Array(10).fill(429)]);
    for (const res of limited) {
      expectErrorEnvelope(res, 429, 'rate_limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.headers['ratelimit-remaining']).toBe('0');
      expect(res.headers['ratelimit-limit']).toBe(String(LIMIT));
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.body.message).toContain('per second per API key');
    }
  });

  it('counts each API key on its own', async () => {
    const other = await t.createTenant();
    await inOneWindow(t, async (tenant) => {
      const burst = await Promise.all(
        Array.from({ length: 8 }, () => t.http().get('/v0/products').set(tenant.auth)),
      );
      expect(burst.some((r) => r.status === 429)).toBe(true);
      const res = await t.http().get('/v0/products').set(other.auth);
      expect(res.status).toBe(200);
    });
  });

  it('lets requests through again once the window has passed', async () => {
    const tenant = await t.createTenant();
    const burst = await Promise.all(
      Array.from({ length: 12 }, () => t.http().get('/v0/products').set(tenant.auth)),
    );
    const limited = burst.find((r) => r.status === 429)!;
    expect(limited).toBeDefined();
    await new Promise((r) => setTimeout(r, Number(limited.headers['retry-after']) * 1000 + 50));
    await t.http().get('/v0/products').set(tenant.auth).expect(200);
  });

  it('does not store a 429 under an Idempotency-Key: the retry after the window runs', async () => {
    const key = `rate-limited-${Date.now()}`;
    const send = (tenant: TestTenant) =>
      t
        .http()
        .post('/v0/products')
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .send({ name: 'Limited' });
    const { tenant, limited } = await inOneWindow(t, async (tenant) => {
      await Promise.all(
        Array.from({ length: LIMIT }, () => t.http().get('/v0/products').set(tenant.auth)),
      );
      return { tenant, limited: await send(tenant) };
    });
    expectErrorEnvelope(limited, 429, 'rate_limited');
    await new Promise((r) => setTimeout(r, Number(limited.headers['retry-after']) * 1000 + 50));
    const retry = await send(tenant);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not limit /healthz, /readyz or the docs', async () => {
    const responses = await Promise.all(
      Array.from({ length: 3 * LIMIT }, (_, i) =>
        t.http().get(['/healthz', '/readyz', '/docs-json'][i % 3]),
      ),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(responses[0].headers['ratelimit-limit']).toBeUndefined();
  });
});

describe(`rate limit without an API key (${TEST_DIALECT})`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PER_SECOND: String(LIMIT) });
  });
  afterAll(() => t.close());

  it('counts requests that carry no key per IP address', async () => {
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => t.http().get('/v0/products')),
    );
    expect(responses.some((r) => r.status === 401)).toBe(true);
    const limited = responses.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(2);
    expectErrorEnvelope(limited[0], 429, 'rate_limited');
    // Counted by address, and the message says so (not "per API key").
    expect(limited[0].body.message).toContain('per client address for requests without an API key');
  });
});

describeWithRedis(
  `rate limit shared between instances through Redis (${TEST_DIALECT})${REDIS_NOTE}`,
  () => {
    let t: TestApp;
    let second: NestFastifyApplication;

    beforeAll(async () => {
      t = await startTestApp({ RATE_LIMIT_PER_SECOND: String(LIMIT), REDIS_URL: REDIS_URL! });
      second = await createApp(t.config);
    });
    afterAll(async () => {
      await second.close();
      await t.close();
    });

    it('spends one budget whichever instance answers', async () => {
      const responses = await inOneWindow(t, async (tenant) => {
        const viaFirst = await Promise.all(
          Array.from({ length: 3 }, () => t.http().get('/v0/nothing').set(tenant.auth)),
        );
        const viaSecond = await Promise.all(
          Array.from({ length: 3 }, () =>
            request(second.getHttpServer()).get('/v0/nothing').set(tenant.auth),
          ),
        );
        return [...viaFirst, ...viaSecond];
      });
      // 6 requests against a budget of 5 spread over two instances: one of them must be refused,
      // which two separate in-memory counts (3 each) would never do.
      expect(responses.filter((r) => r.status === 429)).toHaveLength(1);
      const remaining = responses
        .filter((r) => r.status !== 429)
        .map((r) => Number(r.headers['ratelimit-remaining']))
        .sort((a, b) => a - b);
      expect(remaining).toEqual([0, 1, 2, 3, 4]);
    });
  },
);

describe(`rate limit when Redis is down (${TEST_DIALECT})`, () => {
  let t: TestApp;

  beforeAll(async () => {
    // Nothing listens on port 1: every Redis command fails at once.
    t = await startTestApp({
      RATE_LIMIT_PER_SECOND: String(LIMIT),
      REDIS_URL: 'redis://127.0.0.1:1',
    });
  });
  afterAll(() => t.close());

  it('keeps serving, and keeps limiting with this instance’s own count', async () => {
    const responses = await inOneWindow(t, (tenant) =>
      Promise.all(Array.from({ length: 10 }, () => t.http().get('/v0/products').set(tenant.auth))),
    );
    expect(statuses(responses)).toEqual([...Array(5).fill(200), ...Array(5).fill(429)]);
    await t.http().get('/readyz').expect(200);
  });
});
