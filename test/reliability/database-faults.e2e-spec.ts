import Sqlite from 'better-sqlite3';
import { TEST_ENCRYPTION_KEY } from '../helpers/test-app';
import { TEST_DIALECT, TestDatabase, createTestDatabase } from '../helpers/test-database';
import { RunningServer, runCli, startServer } from '../helpers/processes';
import { replyProblems } from '../helpers/reliability/checks';
import { expectStatus } from '../helpers/reliability/fixtures';
import { HttpClient, Reply } from '../helpers/reliability/http';
import { checkInvariants, openDatabase } from '../helpers/reliability/invariants';
import { reportFigures, scale } from '../helpers/reliability/settings';
import { TcpProxy } from '../helpers/reliability/tcp-proxy';

/**
 * The database going away under a running service (the real server, as a child process): it
 * answers 503 service_unavailable quickly, never a 500 and never a hung request; /readyz says
 * 503; /healthz keeps answering; and service resumes by itself when the database is back.
 * PostgreSQL is taken away by a TCP proxy (the machine's server is shared and keeps running);
 * SQLite by another connection holding its write lock.
 */
const API_KEY = 'sk_test_' + 'F'.repeat(32);
const AUTH = { authorization: `Bearer ${API_KEY}` };
/** The longest a request may take while the database is unreachable (query_timeout is 5 s). */
const QUICK_MS = 6500;

function serverEnv(databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    NODE_ENV: 'test',
    BOOTSTRAP_API_KEY: API_KEY,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '100000',
    DATABASE_POOL_SIZE: '4',
  };
}

/** Failures of the contract in `reply`, with the request named. */
function checked(what: string, reply: Reply): Reply {
  const problems = replyProblems(reply, { allowUnavailable: true });
  if (problems.length > 0)
    throw new Error(`${what}: ${reply.status} ${reply.text} (${problems.join('; ')})`);
  return reply;
}

async function waitUntil(what: string, ms: number, ok: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await ok()) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

if (TEST_DIALECT === 'postgres') {
  describe('PostgreSQL out of reach (postgres)', () => {
    let database: TestDatabase;
    let proxy: TcpProxy;
    let server: RunningServer;
    let client: HttpClient;
    let productId: string;
    const figures = {
      faults: 0,
      requestsDuringFaults: 0,
      unavailable: 0,
      slowestMs: 0,
      recoveryMs: 0,
    };

    beforeAll(async () => {
      database = await createTestDatabase();
      const target = new URL(database.url);
      proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
      await proxy.start();
      const viaProxy = new URL(database.url);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      server = await startServer(serverEnv(viaProxy.toString()));
      client = new HttpClient(server.url);
      productId = expectStatus(
        await client.post('/v0/products', { name: 'Before' }, AUTH),
        201,
        'product',
      ).id;
    });
    afterAll(async () => {
      reportFigures('database-faults', { ...figures, requests: client?.sent });
      await server?.stop('SIGKILL');
      await proxy?.close();
      await database?.drop();
    });

    /** Requests of every kind while the database is away: each a quick 503 (or 200 for /healthz). */
    async function duringOutage(round: number, key: string): Promise<void> {
      const requests: [string, () => Promise<Reply>][] = [
        ['list', () => client.get('/v0/products', AUTH)],
        ['get', () => client.get(`/v0/products/${productId}`, AUTH)],
        ['create', () => client.post('/v0/products', { name: `During outage ${round}` }, AUTH)],
        [
          'patch',
          () => client.patch(`/v0/products/${productId}`, { name: `Outage ${round}` }, AUTH),
        ],
        [
          'create with key',
          () => client.post('/v0/products', { name: 'Keyed' }, { ...AUTH, 'idempotency-key': key }),
        ],
        [
          'plan',
          () =>
            client.post('/v0/plans', { name: 'x', productId, billingInterval: 'monthly' }, AUTH),
        ],
        ['readyz', () => client.get('/readyz')],
        // A key not seen before cannot be checked: 503, never a 401 that would tell the client
        // its (perhaps valid) key is wrong.
        [
          'unknown key',
          () =>
            client.get('/v0/products', {
              authorization: `Bearer sk_live_${String(round).padStart(32, 'U')}`,
            }),
        ],
      ];
      const replies = await Promise.all(requests.map(([, send]) => send()));
      replies.forEach((reply, i) => {
        const [what] = requests[i];
        checked(what, reply);
        figures.requestsDuringFaults += 1;
        figures.slowestMs = Math.max(figures.slowestMs, reply.ms);
        expect({ what, status: reply.status, error: reply.body?.error }).toEqual({
          what,
          status: 503,
          error: 'service_unavailable',
        });
        expect(reply.headers['retry-after']).toBe('1');
        expect(reply.ms).toBeLessThan(QUICK_MS);
        figures.unavailable += 1;
      });
      const health = await client.get('/healthz');
      expect(health.status).toBe(200);
    }

    async function expectRecovered(key?: string): Promise<void> {
      figures.recoveryMs = Math.max(
        figures.recoveryMs,
        await waitUntil(
          'readiness',
          15000,
          async () => (await client.get('/readyz')).status === 200,
        ),
      );
      const read = checked('get after', await client.get(`/v0/products/${productId}`, AUTH));
      expect(read.status).toBe(200);
      // Nothing a 503 answered was written, and the key of a 503 was not used up.
      const list = await client.get('/v0/products?limit=100', AUTH);
      expect(
        list.body.data.filter((p: { name: string }) => p.name.startsWith('During outage')),
      ).toEqual([]);
      expect(read.body.name).toBe('Before');
      if (key) {
        const keyed = await client.post(
          '/v0/products',
          { name: 'Keyed' },
          { ...AUTH, 'idempotency-key': key },
        );
        checked('keyed after', keyed);
        expect({ status: keyed.status, replayed: keyed.headers['idempotent-replayed'] }).toEqual({
          status: 201,
          replayed: undefined,
        });
      }
    }

    it('answers 503 quickly while the server refuses connections, and recovers by itself', async () => {
      // Warm the pool, so that idle connections are among those that break.
      await Promise.all(Array.from({ length: 8 }, () => client.get('/v0/products', AUTH)));
      await proxy.cut();
      figures.faults += 1;
      for (let round = 0; round < scale(2, 10); round++) await duringOutage(round, 'refused-key');
      await proxy.restore();
      await expectRecovered('refused-key');
    });

    it('answers 503 quickly while the network drops every packet (no hung requests), and recovers', async () => {
      await Promise.all(Array.from({ length: 8 }, () => client.get('/v0/products', AUTH)));
      proxy.blackhole();
      figures.faults += 1;
      for (let round = 0; round < scale(2, 6); round++) await duringOutage(round, 'dropped-key');
      await proxy.restore();
      await expectRecovered('dropped-key');
    });

    it('rides out a database that comes and goes, with every answer a 2xx or a 503', async () => {
      const statuses = new Map<number, number>();
      let running = true;
      const load = (async () => {
        for (let i = 0; running; i++) {
          const replies = await Promise.all([
            client.post('/v0/products', { name: `Flap ${i}` }, AUTH),
            client.get(`/v0/products/${productId}`, AUTH),
          ]);
          for (const reply of replies) {
            checked('flapping', reply);
            statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
            expect([200, 201, 503]).toContain(reply.status);
          }
        }
      })();
      for (let flap = 0; flap < scale(3, 15); flap++) {
        await new Promise((r) => setTimeout(r, 300));
        if (flap % 2 === 0) await proxy.cut();
        else proxy.blackhole();
        figures.faults += 1;
        await new Promise((r) => setTimeout(r, 700));
        await proxy.restore();
      }
      await new Promise((r) => setTimeout(r, 500));
      running = false;
      await load;
      await expectRecovered();
      expect(statuses.get(503) ?? 0).toBeGreaterThan(0);
      expect((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0)).toBeGreaterThan(0);
      const ds = await openDatabase(database);
      try {
        const report = await checkInvariants(ds);
        expect(report.violations).toEqual([]);
      } finally {
        await ds.destroy();
      }
    });
  });
} else {
  describe('SQLite held by another connection (sqlite)', () => {
    let database: TestDatabase;
    let server: RunningServer;
    let client: HttpClient;
    let holder: Sqlite.Database;
    let productId: string;
    let metricId: string;
    const figures = { faults: 0, requestsDuringFaults: 0, unavailable: 0, slowestMs: 0 };

    beforeAll(async () => {
      database = await createTestDatabase();
      server = await startServer(serverEnv(database.url));
      client = new HttpClient(server.url);
      productId = expectStatus(
        await client.post('/v0/products', { name: 'Locked' }, AUTH),
        201,
        'product',
      ).id;
      metricId = expectStatus(
        await client.post(
          '/v0/billableMetrics',
          { productId, name: 'Calls', unit: 'call', aggregation: 'COUNT' },
          AUTH,
        ),
        201,
        'metric',
      ).id;
      holder = new Sqlite(database.url.slice('sqlite:'.length));
    });
    afterAll(async () => {
      reportFigures('database-faults', { ...figures, requests: client?.sent });
      holder?.close();
      await server?.stop('SIGKILL');
      await database?.drop();
    });

    /** Takes the write lock (and writes, so that earlier snapshots go stale), holds it, commits. */
    async function holdLock(ms: number, during: () => Promise<void>): Promise<void> {
      holder.exec('BEGIN IMMEDIATE');
      holder.exec(`UPDATE organizations SET updated_at = updated_at`);
      figures.faults += 1;
      const release = new Promise<void>((resolve) =>
        setTimeout(() => {
          holder.exec('COMMIT');
          resolve();
        }, ms),
      );
      try {
        await during();
      } finally {
        await release;
      }
    }

    const writes = (tag: string): [string, () => Promise<Reply>][] => [
      ['create', () => client.post('/v0/products', { name: `${tag} product` }, AUTH)],
      [
        'read-then-write',
        () => client.patch(`/v0/products/${productId}`, { metadata: { [tag]: 'yes' } }, AUTH),
      ],
      [
        'price',
        () =>
          client.post(
            '/v0/prices',
            {
              billableMetricId: metricId,
              model: 'standard',
              invoiceDisplayName: tag,
              properties: { unitPrice: '1' },
            },
            AUTH,
          ),
      ],
      [
        'create with key',
        () =>
          client.post(
            '/v0/products',
            { name: `${tag} keyed` },
            { ...AUTH, 'idempotency-key': tag },
          ),
      ],
    ];

    it('waits for a short lock and then writes, without stalling the rest of the service', async () => {
      const started = Date.now();
      let replies: Reply[] = [];
      let health: Reply | undefined;
      await holdLock(1500, async () => {
        const sent = Promise.all(writes('short').map(([, send]) => send()));
        await new Promise((r) => setTimeout(r, 300));
        health = await client.get('/healthz');
        replies = await sent;
      });
      // The event loop is free while writes wait for the lock: health answers at once.
      expect(health?.status).toBe(200);
      expect(health!.ms).toBeLessThan(500);
      replies.forEach((reply, i) => {
        const what = writes('x')[i][0];
        checked(what, reply);
        figures.requestsDuringFaults += 1;
        expect({ what, status: reply.status }).toEqual({
          what,
          status: what === 'read-then-write' ? 200 : 201,
        });
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
      const product = await client.get(`/v0/products/${productId}`, AUTH);
      expect(product.body.metadata).toMatchObject({ short: 'yes' });
    });

    it('answers 503 to writes a long lock holds past 5 s, keeps /healthz answering, and writes again after', async () => {
      let replies: Reply[] = [];
      let health: Reply | undefined;
      await holdLock(7500, async () => {
        const sent = Promise.all(writes('long').map(([, send]) => send()));
        await new Promise((r) => setTimeout(r, 1000));
        health = await client.get('/healthz');
        replies = await sent;
      });
      expect(health?.status).toBe(200);
      expect(health!.ms).toBeLessThan(500);
      replies.forEach((reply, i) => {
        const what = writes('x')[i][0];
        checked(what, reply);
        figures.requestsDuringFaults += 1;
        figures.slowestMs = Math.max(figures.slowestMs, reply.ms);
        expect({ what, status: reply.status, error: reply.body?.error }).toEqual({
          what,
          status: 503,
          error: 'service_unavailable',
        });
        expect(reply.ms).toBeLessThan(QUICK_MS);
        figures.unavailable += 1;
      });
      // Once the lock is gone, the same requests (the keyed one too: a 503 is not stored) succeed.
      for (const [what, send] of writes('long')) {
        const reply = checked(what, await send());
        expect({ what, status: reply.status }).toEqual({
          what,
          status: what === 'read-then-write' ? 200 : 201,
        });
      }
    });

    it('shares the database with the command line writing at the same time', async () => {
      let running = true;
      let served = 0;
      const load = (async () => {
        for (let i = 0; running; i++) {
          const replies = await Promise.all([
            client.post('/v0/products', { name: `With CLI ${i}` }, AUTH),
            client.patch(`/v0/products/${productId}`, { metadata: { cli: i } }, AUTH),
          ]);
          for (const reply of replies) {
            checked('alongside the CLI', reply);
            expect([200, 201]).toContain(reply.status);
            served += 1;
          }
        }
      })();
      const env = {
        DATABASE_URL: database.url,
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        NODE_ENV: 'test',
      };
      for (let i = 0; i < scale(1, 4); i++) {
        const org = await runCli(['organizations:create', '--name', `CLI ${i}`], env);
        expect(org.code).toBe(0);
        const key = await runCli(['api-keys:create', '--organization', org.json.id], env);
        expect(key.code).toBe(0);
        figures.faults += 2;
      }
      running = false;
      await load;
      expect(served).toBeGreaterThan(10);
      const ds = await openDatabase(database);
      try {
        const report = await checkInvariants(ds);
        expect(report.violations).toEqual([]);
      } finally {
        await ds.destroy();
      }
    });
  });
}
