import type { AddressInfo } from 'node:net';
import { FaultsModule } from '../helpers/faults.module';
import { captureLogs } from '../helpers/log-capture';
import { sendAsWritten } from '../helpers/raw-http';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';

describe(`request logs (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  const logs = captureLogs();

  beforeAll(async () => {
    t = await startTestApp(
      { LOG_LEVEL: 'info' },
      { extraModules: [FaultsModule], logDestination: logs.destination },
    );
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  it('writes one structured line per request with its request id, and never the API key', async () => {
    await t
      .http()
      .post('/v0/test-faults/echo')
      .set(tenant.auth)
      .set('X-Request-Id', 'log-test-1')
      .set('Cookie', 'session=secret-cookie')
      .send({ name: 'hello' })
      .expect(201);
    const entries = logs.of('log-test-1');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      req: { method: 'POST', url: '/v0/test-faults/echo' },
      res: { statusCode: 201 },
    });
    const all = logs.lines.join('\n');
    expect(all).not.toContain(tenant.apiKey);
    expect(all).not.toContain('secret-cookie');
  });

  it('logs an unexpected error with its stack under the same request id', async () => {
    await t
      .http()
      .get('/v0/test-faults/crash')
      .set(tenant.auth)
      .set('X-Request-Id', 'log-test-2')
      .expect(500);
    const entries = logs.of('log-test-2');
    expect(entries.some((e) => e.err?.stack?.includes('boom'))).toBe(true);
    expect(entries.some((e) => e.res?.statusCode === 500)).toBe(true);
  });
});

/**
 * The outside probe: secrets and account numbers sent where no field expects them (the path,
 * X-Request-Id, User-Agent, Content-Type) reach neither the log nor an answer (docs/api.md §5.5,
 * §6). Raw requests go through node:http, which puts the target on the request line as it is.
 */
describe(`secrets wherever a client puts them (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let port: number;
  const logs = captureLogs();
  const IBAN = 'DE89370400440532013000';
  const TEST_KEY = `sk_test_${'T3stK3y'.repeat(4)}abcd`;
  const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

  beforeAll(async () => {
    t = await startTestApp({ LOG_LEVEL: 'info' }, { logDestination: logs.destination });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  const secrets = () => [tenant.apiKey, TEST_KEY, WEBHOOK_SECRET, IBAN];

  function expectNoSecretIn(text: string): void {
    for (const secret of secrets()) {
      expect(text).not.toContain(secret);
      expect(text.toLowerCase()).not.toContain(secret.toLowerCase());
    }
  }

  /**
   * The answer and every log line written meanwhile hold no secret; returns the answer and the
   * request's line (a request the router refuses gets one too).
   */
  async function probe(
    target: string,
    headers: Record<string, string> = {},
    { method = 'GET' } = {},
  ) {
    const before = logs.lines.length;
    const res = await sendAsWritten(port, method, target, { ...tenant.auth, ...headers });
    // The request line is written once the answer has gone out.
    await new Promise((resolve) => setImmediate(resolve));
    const lines = logs.lines.slice(before);
    expectNoSecretIn(res.text);
    expectNoSecretIn(JSON.stringify(res.headers));
    expectNoSecretIn(lines.join('\n'));
    const entries = lines
      .map((l) => JSON.parse(l))
      .filter((e) => e.reqId === res.headers['x-request-id']);
    const line = entries.find((e) => e.res?.statusCode !== undefined);
    expect(line).toBeDefined();
    return { res, line };
  }

  describe('in the path', () => {
    it.each([
      ['an API key', () => tenant.apiKey, '/v0/products', 'No such product'],
      ['a test-mode key', () => TEST_KEY, '/v0/plans', 'No such plan'],
      ['an IBAN', () => IBAN, '/v0/externalAccounts', 'No such external bank account'],
      [
        'a webhook secret',
        () => WEBHOOK_SECRET,
        '/v0/webhookEndpoints',
        'No such webhook endpoint',
      ],
    ])(
      'logs %s in place of a resource id as [redacted], and never echoes it',
      async (_what, value, route, message) => {
        const { res, line } = await probe(`${route}/${value()}`);
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ code: 'RESOURCE_NOT_FOUND', message });
        expect(line.req.url).toBe(`${route}/[redacted]`);
      },
    );

    it('logs an account number on a path no route has as [redacted], keeping the route words, and never echoes it', async () => {
      const { res, line } = await probe(`/v0/externalAccounts/${IBAN}/products?x=1`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        code: 'ROUTE_NOT_FOUND',
        message: 'No route GET /v0/externalAccounts/[redacted]/products',
      });
      expect(line.req.url).toBe('/v0/externalAccounts/[redacted]/products');
      expect(line.req.query).toEqual(['x']);
    });

    it('answers 405 on a route named by its pattern, never by what is in the path', async () => {
      const { res } = await probe(`/v0/externalAccounts/${IBAN}`, {}, { method: 'PUT' });
      expect(res.status).toBe(405);
      expect(res.body.message).toBe('PUT is not allowed on /v0/externalAccounts/:id');
      expect(res.headers.allow).toContain('PATCH');
    });

    it('logs a key sent as a percent-encoded, absolute-form target as [redacted]', async () => {
      const encoded = [...tenant.apiKey].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
      const { res, line } = await probe(`http://${TEST_KEY}@localhost/v%30/products/${encoded}`);
      expect(res.status).toBe(404);
      expect(line.req.url).toBe('/v0/products/[redacted]');
    });

    it.each([
      ['of bad percent-encoding', `/v0/externalAccounts/${IBAN}%zz`],
      ['longer than the router takes', `/v0/externalAccounts/${IBAN}${'0'.repeat(1200)}`],
    ])(
      'answers a path the router refuses, %s, without echoing it, and logs it redacted',
      async (_what, target) => {
        const { res, line } = await probe(target);
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ code: 'RESOURCE_NOT_FOUND', message: 'No such resource' });
        expect(line).toMatchObject({
          req: { method: 'GET', url: '/v0/externalAccounts/[redacted]' },
          res: { statusCode: 404 },
        });
      },
    );

    it('keeps well-formed ids and route words in the logged path and the message', async () => {
      const id = 'eba_01JD3Y2Q6J8C4N1V9W5X7Z0000';
      const { res, line } = await probe(`/v0/externalAccounts/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.message).toBe(`No such external bank account: '${id}'`);
      expect(line.req.url).toBe(`/v0/externalAccounts/${id}`);
    });
  });

  describe('as X-Request-Id', () => {
    it.each([
      ['an API key', () => tenant.apiKey],
      ['a test-mode key in capitals', () => TEST_KEY.toUpperCase()],
      ['a webhook secret', () => WEBHOOK_SECRET],
      ['a key after a prefix of the client', () => `trace.${tenant.apiKey}`],
    ])('answers and logs under a new request id instead of %s', async (_what, value) => {
      const { res, line } = await probe('/v0/products/nope', { 'X-Request-Id': value() });
      expect(res.status).toBe(404);
      expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
      expect(res.body.requestId).toBe(res.headers['x-request-id']);
      expect(line.reqId).toBe(res.headers['x-request-id']);
    });

    it('still takes a client request id of the allowed shape', async () => {
      const { res, line } = await probe('/healthz', { 'X-Request-Id': 'client-trace.42_a' });
      expect(res.headers['x-request-id']).toBe('client-trace.42_a');
      expect(line.reqId).toBe('client-trace.42_a');
    });
  });

  describe('in a logged header', () => {
    it('redacts a key inside the User-Agent and keeps the rest', async () => {
      const { res, line } = await probe('/v0/products?limit=1', {
        'User-Agent': `myapp/1.0 key=${tenant.apiKey} (linux)`,
      });
      expect(res.status).toBe(200);
      expect(line.req.headers['user-agent']).toBe('myapp/1.0 key=[redacted] (linux)');
    });

    it('redacts a test key and a webhook secret inside the User-Agent and the Content-Type', async () => {
      const { line } = await probe('/healthz', {
        'User-Agent': `curl ${TEST_KEY.toUpperCase()} ${WEBHOOK_SECRET}`,
        'Content-Type': `text/plain; secret=${WEBHOOK_SECRET}`,
      });
      expect(line.req.headers['user-agent']).toBe('curl [redacted] [redacted]');
      expect(line.req.headers['content-type']).toBe('text/plain; secret=[redacted]');
    });
  });
});
