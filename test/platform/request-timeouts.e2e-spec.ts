import { Socket } from 'node:net';
import { TestTenant } from '../helpers/test-app';
import { TEST_DIALECT, TestDatabase, createTestDatabase } from '../helpers/test-database';
import { startServer } from '../helpers/processes';
import { TEST_ENCRYPTION_KEY } from '../helpers/test-app';
import { ListeningApp, startListeningApp } from '../helpers/reliability/fixtures';
import { exchange, expectRawEnvelope } from '../helpers/raw-http';

/**
 * Issue 17, finding 4: a request whose headers or body have not arrived in full within
 * REQUEST_TIMEOUT_SECONDS is answered 408 in the envelope and closed; a client that hangs up is
 * the client's doing; a stalled upload does not hold SIGTERM (docs/api.md §6 and §7).
 */
describe(`request timeouts and hang-ups (${TEST_DIALECT})`, () => {
  let l: ListeningApp;
  let port: number;
  let tenant: TestTenant;

  beforeAll(async () => {
    l = await startListeningApp({ REQUEST_TIMEOUT_SECONDS: '1' });
    port = Number(new URL(l.client.baseUrl).port);
    tenant = await l.t.createTenant();
  });
  afterAll(() => l.t.close());

  const products = async () =>
    (await l.t.http().get('/v0/products?limit=100').set(tenant.auth).expect(200)).body.pagination
      .total as number;

  const stalledUpload = () =>
    `POST /v0/products HTTP/1.1\r\nHost: x\r\nAuthorization: ${tenant.auth.Authorization}\r\n` +
    'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';

  it('answers 408 in the envelope to a body that stops arriving, closes, and stores nothing', async () => {
    const before = await products();
    const { responses, closed } = await exchange(port, stalledUpload(), { waitMs: 15_000 });
    expect(closed).toBe(true);
    expectRawEnvelope(responses[0], 408, 'request_timeout', 'REQUEST_TIMEOUT');
    expect(responses[0].headers.connection).toBe('close');
    expect(await products()).toBe(before);
    // The request went through Fastify: its request line has the 408, at warn, not error.
    const line = l.logs.find((entry) => entry.includes(responses[0].body.requestId));
    expect(JSON.parse(line!)).toMatchObject({ level: 40, res: { statusCode: 408 } });
  });

  it('cuts headers that never complete (slowloris) with a 408 in the envelope', async () => {
    const { responses, closed } = await exchange(
      port,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n',
      {
        waitMs: 15_000,
      },
    );
    expect(closed).toBe(true);
    expectRawEnvelope(responses[0], 408, 'request_timeout', 'REQUEST_TIMEOUT');
  });

  it('cuts a connection that never sends a byte', async () => {
    const { closed, responses } = await exchange(port, '', { waitMs: 15_000 });
    expect(closed).toBe(true);
    expectRawEnvelope(responses[0], 408, 'request_timeout', 'REQUEST_TIMEOUT');
  });

  it('cuts every one of many stalled uploads, unauthenticated ones included', async () => {
    const unauthenticated =
      'POST /v0/products HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        exchange(port, i % 2 ? unauthenticated : stalledUpload(), { waitMs: 20_000 }),
      ),
    );
    expect(results.filter((r) => r.closed)).toHaveLength(20);
    for (const r of results) expectRawEnvelope(r.responses[0], 408, 'request_timeout');
  });

  it('still serves requests that arrive in time on a kept-alive connection', async () => {
    const request = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
    const { responses } = await exchange(port, request + request, { waitMs: 500 });
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
  });

  it('logs a client that hangs up mid-upload as one info line with the request id, no stack', async () => {
    const before = l.logs.length;
    await new Promise<void>((resolve) => {
      void exchange(port, stalledUpload(), {
        waitMs: 5_000,
        onSocket: (socket: Socket) => {
          setTimeout(() => {
            socket.resetAndDestroy();
            resolve();
          }, 200);
        },
      });
    });
    let lines: any[] = [];
    for (let i = 0; i < 50 && lines.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      lines = l.logs.slice(before).map((line) => JSON.parse(line));
    }
    const hangUps = lines.filter((line) => /client closed the connection/.test(line.msg));
    expect(hangUps).toHaveLength(1);
    expect(hangUps[0].level).toBeLessThanOrEqual(40);
    expect(hangUps[0].reqId).toMatch(/^req_/);
    expect(JSON.stringify(lines)).not.toMatch(/stack|request failed unexpectedly/);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });

  it('logged none of the above as an error of the service', () => {
    const errors = l.logs.map((line) => JSON.parse(line)).filter((line) => line.level >= 50);
    expect(errors).toEqual([]);
  });

  it('answers a request arriving while the app closes with a 503 in the envelope', async () => {
    const other = await startListeningApp({ REQUEST_TIMEOUT_SECONDS: '30' });
    const otherPort = Number(new URL(other.client.baseUrl).port);
    const otherTenant = await other.t.createTenant();
    const stalled = exchange(
      otherPort,
      `POST /v0/products HTTP/1.1\r\nHost: x\r\nAuthorization: ${otherTenant.auth.Authorization}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
      { waitMs: 20_000 },
    );
    const halfHeaders = exchange(otherPort, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', {
      waitMs: 20_000,
    });
    await new Promise((r) => setTimeout(r, 300));
    await other.t.close();
    for (const result of await Promise.all([stalled, halfHeaders])) {
      expect(result.closed).toBe(true);
      expectRawEnvelope(result.responses[0], 503, 'service_unavailable', 'SHUTTING_DOWN');
      expect(result.responses[0].headers['retry-after']).toBe('1');
    }
  });
});

describe(`SIGTERM with stalled clients (${TEST_DIALECT})`, () => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(() => database.drop());

  it('answers a stalled upload and half-sent headers 503, closes idle connections and exits 0', async () => {
    const server = await startServer({
      DATABASE_URL: database.url,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      NODE_ENV: 'test',
      BOOTSTRAP_API_KEY: 'sk_live_' + 'T'.repeat(32),
      // Neither timeout may be what ends the stall: shutdown has to.
      REQUEST_TIMEOUT_SECONDS: '120',
      SHUTDOWN_TIMEOUT_SECONDS: '60',
    });
    const port = Number(new URL(server.url).port);
    const upload = exchange(
      port,
      `POST /v0/products HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_live_${'T'.repeat(32)}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":',
      { waitMs: 90_000 },
    );
    const halfHeaders = exchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', { waitMs: 90_000 });
    const idle = exchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', { waitMs: 90_000 });
    await new Promise((r) => setTimeout(r, 500));

    expect(await server.stop('SIGTERM')).toBe(0);
    const [stalled, partial, kept] = await Promise.all([upload, halfHeaders, idle]);
    for (const result of [stalled, partial]) {
      expect(result.closed).toBe(true);
      expectRawEnvelope(result.responses[0], 503, 'service_unavailable', 'SHUTTING_DOWN');
    }
    expect(kept.closed).toBe(true);
    expect(kept.responses.map((r) => r.status)).toEqual([200]);
    expect(server.output()).not.toMatch(/shutdown timed out|request failed unexpectedly/);
  });
});
