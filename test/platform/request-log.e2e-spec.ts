import { Writable } from 'node:stream';
import { FaultsModule } from '../helpers/faults.module';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';

describe(`request logs (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  const lines: string[] = [];

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    t = await startTestApp(
      { LOG_LEVEL: 'info' },
      { extraModules: [FaultsModule], logDestination: destination },
    );
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  const logsOf = (requestId: string) =>
    lines.map((l) => JSON.parse(l)).filter((l) => l.reqId === requestId || l.req?.id === requestId);

  it('writes one structured line per request with its request id, and never the API key', async () => {
    await t
      .http()
      .post('/v0/test-faults/echo')
      .set(tenant.auth)
      .set('X-Request-Id', 'log-test-1')
      .set('Cookie', 'session=secret-cookie')
      .send({ name: 'hello' })
      .expect(201);
    const entries = logsOf('log-test-1');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      req: { method: 'POST', url: '/v0/test-faults/echo' },
      res: { statusCode: 201 },
    });
    const all = lines.join('\n');
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
    const entries = logsOf('log-test-2');
    expect(entries.some((e) => e.err?.stack?.includes('boom'))).toBe(true);
    expect(entries.some((e) => e.res?.statusCode === 500)).toBe(true);
  });
});
