import { TEST_DIALECT } from '../helpers/test-database';
import { TestTenant } from '../helpers/test-app';
import { replyProblems } from '../helpers/reliability/checks';
import {
  ListeningApp,
  accountBody,
  expectStatus,
  priceBody,
  startListeningApp,
} from '../helpers/reliability/fixtures';
import { Reply } from '../helpers/reliability/http';
import { checkInvariants } from '../helpers/reliability/invariants';
import { SEED, pick, reportFigures, scale, seededRandom } from '../helpers/reliability/settings';

/**
 * Many clients at once against one organization: plans competing for the same prices, PATCHes of
 * one external account and one product, retries with Idempotency-Keys after giving up on the
 * first attempt. Afterwards every rule of docs/api.md holds: a price in at most one live plan, no plan
 * without the prices it answered with, no lost metadata key, no duplicate from a retry.
 */
const CLIENTS = scale(8, 24);
const ROUNDS = scale(6, 40);

describe(`concurrent clients (${TEST_DIALECT})`, () => {
  let l: ListeningApp;
  let tenant: TestTenant;
  const random = seededRandom(SEED);
  const figures = {
    requests: 0,
    conflicts: 0,
    preconditionFailures: 0,
    replays: 0,
    invariantChecks: 0,
  };

  beforeAll(async () => {
    l = await startListeningApp({ LOG_LEVEL: 'warn' });
    tenant = await l.t.createTenant();
  });
  afterAll(async () => {
    reportFigures('concurrency', {
      ...figures,
      requests: l.client.sent,
      clients: CLIENTS,
      rounds: ROUNDS,
    });
    await l?.t.close();
  });

  /** One request of a client; any 5xx or envelope problem fails the test at once. */
  async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    const reply = await l.client.request(method, path, {
      body,
      headers: { ...tenant.auth, ...headers },
    });
    const problems = replyProblems(reply);
    if (problems.length > 0)
      throw new Error(`${method} ${path}: ${reply.status} ${reply.text} (${problems.join('; ')})`);
    if (reply.status === 409) figures.conflicts += 1;
    if (reply.status === 412) figures.preconditionFailures += 1;
    if (reply.headers['idempotent-replayed'] === 'true') figures.replays += 1;
    return reply;
  }

  const clients = <T>(work: (client: number) => Promise<T>) =>
    Promise.all(Array.from({ length: CLIENTS }, (_, i) => work(i)));

  async function catalog(metrics: number, pricesPerMetric: number) {
    const product = expectStatus(
      await call('POST', '/v0/products', { name: 'Contended' }),
      201,
      'product',
    );
    const pool: { id: string; metric: string }[] = [];
    for (let m = 0; m < metrics; m++) {
      const metric = expectStatus(
        await call('POST', '/v0/billableMetrics', {
          productId: product.id,
          name: `M${m}`,
          unit: 'u',
          aggregation: 'COUNT',
        }),
        201,
        'metric',
      );
      for (let k = 0; k < pricesPerMetric; k++) {
        const price = expectStatus(
          await call('POST', '/v0/prices', priceBody(metric.id, `${m}.${k}`)),
          201,
          'price',
        );
        pool.push({ id: price.id, metric: metric.id });
      }
    }
    return { productId: product.id as string, pool };
  }

  /** A list of prices with at most one per metric, in random order. */
  function pickPrices(pool: { id: string; metric: string }[], max: number): string[] {
    const byMetric = new Map<string, string>();
    const count = 1 + Math.floor(random() * max);
    for (let i = 0; i < count * 2 && byMetric.size < count; i++) {
      const price = pick(random, pool);
      if (!byMetric.has(price.metric)) byMetric.set(price.metric, price.id);
    }
    return [...byMetric.values()];
  }

  async function expectInvariants() {
    const report = await checkInvariants(l.t.dataSource);
    figures.invariantChecks += report.checks;
    expect(report.violations).toEqual([]);
  }

  it('lets each price go to one plan only when many clients create plans for the same prices', async () => {
    const { productId, pool } = await catalog(6, 3);
    const created: Reply[] = [];
    await clients(async (client) => {
      for (let round = 0; round < ROUNDS; round++) {
        const reply = await call('POST', '/v0/plans', {
          name: `c${client}r${round}`,
          productId,
          billingInterval: 'monthly',
          prices: pickPrices(pool, 3),
        });
        if (reply.status === 201) created.push(reply);
        else
          expect({ status: reply.status, code: reply.body.code }).toEqual({
            status: 409,
            code: 'PRICE_IN_USE',
          });
      }
    });
    expect(created.length).toBeGreaterThan(0);
    // No price in two answers, and each plan holds exactly what it answered with.
    const answered = created.flatMap((r) => r.body.prices.map((p: { id: string }) => p.id));
    expect(answered.length).toBe(new Set(answered).size);
    for (const reply of created) {
      const read = await call('GET', `/v0/plans/${reply.body.id}`);
      expect(read.text).toBe(reply.text);
    }
    const plans = await call('GET', `/v0/plans?productId=${productId}&limit=100`);
    expect(plans.body.pagination.total).toBe(created.length);
    await expectInvariants();
  });

  it('keeps price lists whole when clients PATCH their plans for shared prices while others delete prices', async () => {
    const { productId, pool } = await catalog(5, 4);
    const last = new Map<string, Reply>();
    const deleted = new Set<string>();
    const plans: string[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const plan = expectStatus(
        await call('POST', '/v0/plans', {
          name: `Owned ${i}`,
          productId,
          billingInterval: 'weekly',
        }),
        201,
        'plan',
      );
      plans.push(plan.id);
    }
    const deleter = (async () => {
      for (let round = 0; round < ROUNDS * 2; round++) {
        const price = pick(random, pool).id;
        const reply = await call('DELETE', `/v0/prices/${price}`);
        if (reply.status === 204) deleted.add(price);
        else expect(reply.body.code).toBe('PRICE_IN_USE');
      }
    })();
    await clients(async (client) => {
      const planId = plans[client];
      for (let round = 0; round < ROUNDS; round++) {
        const etag = last.get(planId)?.headers.etag;
        const reply = await call(
          'PATCH',
          `/v0/plans/${planId}`,
          { prices: pickPrices(pool, 3), name: `Owned ${client} v${round}` },
          etag && random() < 0.5 ? { 'if-match': etag } : {},
        );
        if (reply.status === 200) last.set(planId, reply);
        else
          expect(['PRICE_IN_USE', 'PRICE_DELETED']).toContain(
            reply.body.code ?? reply.body.errors?.[0]?.code?.toUpperCase(),
          );
      }
    });
    await deleter;
    const held: string[] = [];
    for (const planId of plans) {
      const read = await call('GET', `/v0/plans/${planId}`);
      const expected = last.get(planId);
      if (expected) expect(read.text).toBe(expected.text);
      held.push(...read.body.prices.map((p: { id: string }) => p.id));
    }
    expect(held.length).toBe(new Set(held).size);
    expect(held.filter((id) => deleted.has(id))).toEqual([]);
    await expectInvariants();
  });

  it('loses no metadata key when many clients PATCH one external account and one product at once', async () => {
    const account = expectStatus(
      await call('POST', '/v0/externalAccounts', accountBody()),
      201,
      'account',
    );
    const product = expectStatus(
      await call('POST', '/v0/products', { name: 'Shared' }),
      201,
      'product',
    );
    const keysPerClient = Math.floor(48 / CLIENTS);
    const expected = { account: new Map<string, unknown>(), product: new Map<string, unknown>() };
    await clients(async (client) => {
      for (let round = 0; round < ROUNDS; round++) {
        for (const [kind, path] of [
          ['account', `/v0/externalAccounts/${account.id}`],
          ['product', `/v0/products/${product.id}`],
        ] as const) {
          const key = `c${client}k${Math.floor(random() * keysPerClient)}`;
          const value = random() < 0.2 ? null : `${client}.${round}`;
          const body: Record<string, unknown> = { metadata: { [key]: value } };
          // The one status a client sends: a resubmission, a no-op while the account is pending.
          if (kind === 'account' && random() < 0.3) body.status = 'new';
          // Sometimes a read-modify-write with If-Match, which may lose to another writer (412).
          let headers: Record<string, string> = {};
          if (random() < 0.3) headers = { 'if-match': (await call('GET', path)).headers.etag };
          const reply = await call('PATCH', path, body, headers);
          if (reply.status === 200) expected[kind].set(key, value);
          else expect(reply.body.code).toBe('ETAG_MISMATCH');
        }
      }
    });
    for (const [kind, path] of [
      ['account', `/v0/externalAccounts/${account.id}`],
      ['product', `/v0/products/${product.id}`],
    ] as const) {
      const read = await call('GET', path);
      const want = Object.fromEntries([...expected[kind]].filter(([, v]) => v !== null));
      expect({ kind, metadata: read.body.metadata }).toEqual({ kind, metadata: want });
    }
    await expectInvariants();
  });

  it('creates nothing twice when clients give up on requests and retry them with the same Idempotency-Key', async () => {
    const { productId, pool } = await catalog(4, 3);
    const finals = new Map<string, Reply>();
    const seen = new Map<string, Set<string>>();
    /** Sends until an answer other than 409 IDEMPOTENCY_KEY_IN_USE; the first try may be abandoned. */
    async function untilAnswered(key: string, path: string, body: unknown): Promise<Reply> {
      const headers = { ...tenant.auth, 'idempotency-key': key };
      // A first attempt the client gives up on after a few milliseconds (the server carries on).
      await l.client
        .request('POST', path, { body, headers, timeoutMs: 1 + Math.floor(random() * 15) })
        .catch(() => undefined);
      for (let attempt = 0; attempt < 200; attempt++) {
        const tries = await Promise.all([
          call('POST', path, body, headers),
          call('POST', path, body, headers),
        ]);
        const done = tries.find(
          (r) => !(r.status === 409 && r.body.code === 'IDEMPOTENCY_KEY_IN_USE'),
        );
        for (const r of tries)
          if (r.status === 201) seen.set(key, (seen.get(key) ?? new Set()).add(r.body.id));
        if (done) return done;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no answer for ${key}`);
    }
    await clients(async (client) => {
      for (let round = 0; round < ROUNDS; round++) {
        const key = `retry-${SEED}-${client}-${round}`;
        const plan = random() < 0.5;
        const path = plan ? '/v0/plans' : '/v0/products';
        const body = plan
          ? { name: key, productId, billingInterval: 'monthly', prices: pickPrices(pool, 2) }
          : { name: key, metadata: { client } };
        finals.set(key, await untilAnswered(key, path, body));
      }
    });
    // Each key made at most one resource: every 201 for it names the same id.
    expect([...seen].filter(([, ids]) => ids.size > 1)).toEqual([]);
    for (const kind of ['products', 'plans']) {
      const names: string[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = await call('GET', `/v0/${kind}?limit=100&offset=${offset}`);
        names.push(...page.body.data.map((r: { name: string }) => r.name));
        if (page.body.data.length < 100) break;
      }
      const retried = names.filter((n) => n.startsWith(`retry-${SEED}-`));
      expect(retried.length).toBe(new Set(retried).size);
      for (const name of retried) expect(finals.get(name)?.status).toBe(201);
    }
    const made = [...finals.values()].filter((r) => r.status === 201).length;
    expect(made).toBeGreaterThan(0);
    await expectInvariants();
  });
});
