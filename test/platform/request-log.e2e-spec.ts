import { FaultsModule } from '../helpers/faults.module';
import { captureLogs } from '../helpers/log-capture';
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
