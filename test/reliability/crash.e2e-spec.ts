import { DataSource } from 'typeorm';
import { IdempotencyService } from '../../src/platform/idempotency/idempotency.service';
import { TEST_ENCRYPTION_KEY, TestTenant } from '../helpers/test-app';
import { TEST_DIALECT, TestDatabase, createTestDatabase } from '../helpers/test-database';
import { RunningServer, startServer } from '../helpers/processes';
import { uniqueDigits } from '../helpers/external-accounts-factory';
import { replyProblems } from '../helpers/reliability/checks';
import {
  ListeningApp,
  accountBody,
  expectStatus,
  priceBody,
  startListeningApp,
} from '../helpers/reliability/fixtures';
import { HttpClient, Reply } from '../helpers/reliability/http';
import { checkInvariants, openDatabase, snapshot } from '../helpers/reliability/invariants';
import { SEED, pick, reportFigures, scale, seededRandom } from '../helpers/reliability/settings';

/**
 * Crash consistency: the real server (a child process) under a write load from many clients is
 * killed with SIGKILL, then started again on the same database. Every 201/200 a client saw is
 * in the database as answered, no refused write left anything, the invariants hold, and the
 * requests whose answer was lost are retried with their Idempotency-Key: none runs twice.
 */
const API_KEY = 'sk_test_' + 'K'.repeat(32);
const AUTH = { authorization: `Bearer ${API_KEY}` };
const CYCLES = scale(1, 4);
const CLIENTS = scale(12, 24);

type Kind = 'product' | 'price' | 'plan' | 'account' | 'metadata';

interface Operation {
  kind: Kind;
  key: string;
  method: string;
  path: string;
  body: Record<string, unknown>;
  /** Unique per operation: the name (or account holder name) of what a create makes. */
  marker: string;
  /** For metadata PATCHes: the key of the shared account's metadata this client owns. */
  metadataKey?: string;
  reply?: Reply;
}

describe(`crash consistency under SIGKILL (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let server: RunningServer | undefined;
  let client: HttpClient;
  let ds: DataSource;
  const random = seededRandom(SEED);
  const env = () => ({
    DATABASE_URL: database.url,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    NODE_ENV: 'test',
    BOOTSTRAP_API_KEY: API_KEY,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '100000',
    // Every answer is compared with a read after the restart: the sandbox must not verify the
    // test-mode accounts in between (test/external-accounts/verification*.e2e-spec.ts does).
    SANDBOX_VERIFICATION_DELAY_MS: '3600000',
  });
  const figures = {
    kills: 0,
    requests: 0,
    acknowledged: 0,
    refused: 0,
    lost: 0,
    retried: 0,
    replayed: 0,
    reran: 0,
    invariantChecks: 0,
  };
  let catalog: {
    productId: string;
    pool: { id: string; metric: string }[];
    metrics: string[];
    accountId: string;
  };
  /** The last value each client saw applied to its metadata key, or a later value it may have. */
  const metadataState = new Map<string, { acknowledged?: unknown; maybe: unknown[] }>();

  async function start(): Promise<void> {
    client?.close();
    server = await startServer(env());
    client = new HttpClient(server.url, false);
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    await start();
    const product = expectStatus(
      await client.post('/v0/products', { name: 'Crash' }, AUTH),
      201,
      'product',
    );
    const metrics: string[] = [];
    const pool: { id: string; metric: string }[] = [];
    for (let m = 0; m < 4; m++) {
      const metric = expectStatus(
        await client.post(
          '/v0/billableMetrics',
          { productId: product.id, name: `M${m}`, unit: 'u', aggregation: 'COUNT' },
          AUTH,
        ),
        201,
        'metric',
      );
      metrics.push(metric.id);
      for (let k = 0; k < 12; k++) {
        pool.push({
          id: expectStatus(
            await client.post('/v0/prices', priceBody(metric.id), AUTH),
            201,
            'price',
          ).id,
          metric: metric.id,
        });
      }
    }
    const account = expectStatus(
      await client.post('/v0/externalAccounts', accountBody(), AUTH),
      201,
      'account',
    );
    catalog = { productId: product.id, pool, metrics, accountId: account.id };
    ds = await openDatabase(database);
  });

  afterAll(async () => {
    reportFigures('crash', { ...figures, clients: CLIENTS, cycles: CYCLES });
    await server?.stop('SIGKILL');
    await ds?.destroy();
    await database?.drop();
  });

  function operation(clientNo: number, n: number, cycle: number): Operation {
    const key = `crash-${SEED}-${cycle}-${clientNo}-${n}`;
    const kind = pick(random, [
      'product',
      'price',
      'plan',
      'account',
      'metadata',
      'metadata',
    ] as Kind[]);
    switch (kind) {
      case 'product':
        return {
          kind,
          key,
          marker: key,
          method: 'POST',
          path: '/v0/products',
          body: { name: key, metadata: { n } },
        };
      case 'price':
        return {
          kind,
          key,
          marker: key,
          method: 'POST',
          path: '/v0/prices',
          body: { ...priceBody(pick(random, catalog.metrics)), invoiceDisplayName: key },
        };
      case 'plan': {
        const first = pick(random, catalog.pool);
        const second = pick(random, catalog.pool);
        const prices = second.metric === first.metric ? [first.id] : [first.id, second.id];
        return {
          kind,
          key,
          marker: key,
          method: 'POST',
          path: '/v0/plans',
          body: { name: key, productId: catalog.productId, billingInterval: 'monthly', prices },
        };
      }
      case 'account':
        return {
          kind,
          key,
          marker: key,
          method: 'POST',
          path: '/v0/externalAccounts',
          body: accountBody({ accountHolderName: key, accountNumber: uniqueDigits(14) }),
        };
      default: {
        const metadataKey = `c${clientNo}k${Math.floor(random() * 2)}`;
        return {
          kind,
          key,
          marker: key,
          metadataKey,
          method: 'PATCH',
          path: `/v0/externalAccounts/${catalog.accountId}`,
          body: { metadata: { [metadataKey]: key } },
        };
      }
    }
  }

  const send = (op: Operation, timeoutMs = 15000) =>
    client.request(op.method, op.path, {
      body: op.body,
      headers: { ...AUTH, 'idempotency-key': op.key },
      timeoutMs,
    });

  /** Runs the load, kills the server mid-way, and returns every operation with what it got. */
  async function loadAndKill(cycle: number): Promise<Operation[]> {
    const operations: Operation[] = [];
    let killed = false;
    const clients = Array.from({ length: CLIENTS }, async (_, clientNo) => {
      for (let n = 0; !killed; n++) {
        const op = operation(clientNo, n, cycle);
        operations.push(op);
        if (op.metadataKey) {
          const state = metadataState.get(op.metadataKey) ?? { maybe: [] };
          state.maybe.push(op.marker);
          metadataState.set(op.metadataKey, state);
        }
        try {
          op.reply = await send(op);
        } catch {
          return; // the server died under this request: its outcome is unknown
        }
        figures.requests += 1;
        const problems = replyProblems(op.reply, { allowUnavailable: true });
        if (problems.length > 0)
          throw new Error(`${op.method} ${op.path}: ${op.reply.text} (${problems.join('; ')})`);
        if (op.metadataKey && op.reply.status === 200) {
          metadataState.set(op.metadataKey, { acknowledged: op.marker, maybe: [] });
        }
      }
    });
    await new Promise((r) => setTimeout(r, 600 + Math.floor(random() * 1200)));
    killed = true;
    await server!.stop('SIGKILL');
    server = undefined;
    figures.kills += 1;
    await Promise.all(clients);
    return operations;
  }

  /** What the database holds for an operation's marker: the ids of the rows it made. */
  async function madeBy(op: Operation): Promise<string[]> {
    const p = TEST_DIALECT === 'postgres' ? '$1' : '?';
    const sql: Record<Exclude<Kind, 'metadata'>, string> = {
      product: `SELECT id FROM products WHERE name = ${p}`,
      price: `SELECT id FROM prices WHERE invoice_display_name = ${p}`,
      plan: `SELECT id FROM plans WHERE name = ${p}`,
      account: `SELECT id FROM external_bank_accounts WHERE account_holder_name = ${p}`,
    };
    if (op.kind === 'metadata') return [];
    const rows: { id: string }[] = await ds.query(sql[op.kind], [op.marker]);
    return rows.map((r) => r.id);
  }

  /** Retries an operation whose answer was lost until it gets one; a key in progress is waited out. */
  async function retry(op: Operation): Promise<Reply> {
    figures.retried += 1;
    for (let attempt = 0; attempt < 3; attempt++) {
      const reply = await send(op);
      expect(replyProblems(reply)).toEqual([]);
      if (!(reply.status === 409 && reply.body.code === 'IDEMPOTENCY_KEY_IN_USE')) {
        if (reply.headers['idempotent-replayed'] === 'true') figures.replayed += 1;
        else figures.reran += 1;
        return reply;
      }
      // The claim of the killed process holds the key until its lock runs out (60 s): let that
      // time pass, as a client that retries later would.
      await ds.query(
        `UPDATE idempotency_records SET locked_until = '2000-01-01 00:00:00'
         WHERE idempotency_key = ${TEST_DIALECT === 'postgres' ? '$1' : '?'} AND state = 'in_progress'`,
        [op.key],
      );
    }
    throw new Error(`${op.key}: still in progress`);
  }

  it.each(Array.from({ length: CYCLES }, (_, i) => [i + 1]))(
    'cycle %i: keeps every answered write and runs no lost one twice',
    async (cycle) => {
      const operations = await loadAndKill(cycle);
      await start();

      const report = await checkInvariants(ds);
      figures.invariantChecks += report.checks;
      expect(report.violations).toEqual([]);

      const lost = operations.filter((op) => !op.reply || op.reply.status === 503);
      const answered = operations.filter((op) => op.reply && op.reply.status !== 503);
      figures.lost += lost.length;
      expect(answered.length).toBeGreaterThan(CLIENTS);

      // Every 201/200 a client saw is there, exactly as answered; every refusal left nothing.
      for (const op of answered) {
        const reply = op.reply!;
        if (reply.status >= 200 && reply.status < 300) {
          figures.acknowledged += 1;
          if (op.kind === 'metadata') continue;
          expect({ op: op.key, made: await madeBy(op) }).toEqual({
            op: op.key,
            made: [reply.body.id],
          });
          const collection = op.path;
          const read = await client.get(`${collection}/${reply.body.id}`, AUTH);
          expect({ op: op.key, body: read.text }).toEqual({ op: op.key, body: reply.text });
        } else {
          figures.refused += 1;
          expect({ op: op.key, status: reply.status, code: reply.body.code }).toEqual({
            op: op.key,
            status: 409,
            code: op.kind === 'plan' ? 'PRICE_IN_USE' : reply.body.code,
          });
          expect({ op: op.key, made: await madeBy(op) }).toEqual({ op: op.key, made: [] });
        }
      }

      // No acknowledged metadata key was lost (a lost PATCH after it may have applied).
      const account = await client.get(`/v0/externalAccounts/${catalog.accountId}`, AUTH);
      for (const [key, state] of metadataState) {
        const value: unknown = account.body.metadata[key];
        if (state.acknowledged !== undefined)
          expect({ key, present: value !== undefined }).toEqual({ key, present: true });
        if (value !== undefined) expect([state.acknowledged, ...state.maybe]).toContain(value);
      }

      // Retried with their keys, the lost requests give one answer each and run at most once.
      for (const op of lost) {
        const reply = await retry(op);
        op.reply = reply;
        if (op.kind === 'metadata') {
          expect({ op: op.key, status: reply.status }).toEqual({ op: op.key, status: 200 });
          metadataState.set(op.metadataKey!, { acknowledged: op.marker, maybe: [] });
          continue;
        }
        const made = await madeBy(op);
        if (reply.status === 201) {
          expect({ op: op.key, made }).toEqual({ op: op.key, made: [reply.body.id] });
        } else {
          expect({ op: op.key, status: reply.status, code: reply.body.code, made }).toEqual({
            op: op.key,
            status: 409,
            code: 'PRICE_IN_USE',
            made: [],
          });
        }
      }
      const after = await checkInvariants(ds);
      figures.invariantChecks += after.checks;
      expect(after.violations).toEqual([]);
    },
    120000,
  );
});

/**
 * The same window without a kill: the write commits but storing its answer afterwards fails
 * (the database refuses the second write, or the process stops there). The answer must already
 * be stored with the write, so a retry after the 60 s claim lock replays it instead of running
 * the request a second time.
 */
describe(`an answer whose storing fails after its write committed (${TEST_DIALECT})`, () => {
  let l: ListeningApp;
  let tenant: TestTenant;
  let metricId: string;
  let productId: string;
  let accountId: string;

  beforeAll(async () => {
    l = await startListeningApp({ LOG_LEVEL: 'silent' });
    tenant = await l.t.createTenant();
    productId = expectStatus(
      await l.client.post('/v0/products', { name: 'P' }, tenant.auth),
      201,
      'product',
    ).id;
    metricId = expectStatus(
      await l.client.post(
        '/v0/billableMetrics',
        { productId, name: 'M', unit: 'u', aggregation: 'COUNT' },
        tenant.auth,
      ),
      201,
      'metric',
    ).id;
    accountId = expectStatus(
      await l.client.post('/v0/externalAccounts', accountBody(), tenant.auth),
      201,
      'account',
    ).id;
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await l?.t.close();
  });

  async function freePrice(): Promise<string> {
    return expectStatus(
      await l.client.post('/v0/prices', priceBody(metricId), tenant.auth),
      201,
      'price',
    ).id;
  }

  const cases: [string, () => Promise<[string, string, unknown]> | [string, string, unknown]][] = [
    ['POST /v0/products', () => ['POST', '/v0/products', { name: 'Once only' }]],
    ['POST /v0/prices', () => ['POST', '/v0/prices', priceBody(metricId)]],
    [
      'POST /v0/plans',
      async () => [
        'POST',
        '/v0/plans',
        { name: 'Once', productId, billingInterval: 'monthly', prices: [await freePrice()] },
      ],
    ],
    ['POST /v0/externalAccounts', () => ['POST', '/v0/externalAccounts', accountBody()]],
    [
      'PATCH /v0/externalAccounts/:id',
      () => ['PATCH', `/v0/externalAccounts/${accountId}`, { accountHolderName: 'Someone Else' }],
    ],
    ['DELETE /v0/prices/:id', async () => ['DELETE', `/v0/prices/${await freePrice()}`, undefined]],
  ];

  it.each(cases)(
    '%s: the retry replays the first answer and nothing is made twice',
    async (_name, build) => {
      const [method, path, body] = await build();
      const key = `unstored-${method}-${path}-${Date.now()}`;
      const headers = { ...tenant.auth, 'idempotency-key': key };
      const before = await snapshot(l.t.dataSource);
      const storing = jest
        .spyOn(IdempotencyService.prototype, 'complete')
        .mockRejectedValueOnce(new Error('the database went away'));
      const first = await l.client.request(method, path, { body, headers });
      expect(storing).toHaveBeenCalledTimes(1);
      storing.mockRestore();
      expect(first.status).toBeLessThan(300);
      const afterFirst = await snapshot(l.t.dataSource);
      expect(afterFirst).not.toBe(before);
      // Sixty seconds later, as far as the claim lock is concerned.
      await l.t.dataSource.query(
        `UPDATE idempotency_records SET locked_until = '2000-01-01 00:00:00' WHERE state = 'in_progress'`,
      );
      const retry = await l.client.request(method, path, { body, headers });
      expect({
        status: retry.status,
        replayed: retry.headers['idempotent-replayed'],
        body: retry.text,
      }).toEqual({
        status: first.status,
        replayed: 'true',
        body: first.text,
      });
      expect(await snapshot(l.t.dataSource)).toBe(afterFirst);
    },
  );
});
