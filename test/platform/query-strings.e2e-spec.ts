import { captureLogs } from '../helpers/log-capture';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import { createAccount } from '../helpers/external-accounts-factory';

/**
 * Issue 17, finding 3: a query string's values are never logged, and a query parameter that the
 * route does not take is refused on every route (docs/api.md §4 and §6).
 */
describe(`query strings (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  const logs = captureLogs();

  beforeAll(async () => {
    t = await startTestApp({ LOG_LEVEL: 'info' }, { logDestination: logs.destination });
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  describe('in the logs', () => {
    it('logs the path and the parameter names of an API key sent as access_token, never the key', async () => {
      const res = await t
        .http()
        .get(`/v0/products?limit=5&access_token=${tenant.apiKey}`)
        .set(tenant.auth)
        .set('X-Request-Id', 'query-log-1');
      // A key in the query string is refused, even beside a good Authorization header.
      expectErrorEnvelope(res, 401, 'unauthorized');
      const [line] = logs.of('query-log-1');
      expect(line.req).toMatchObject({ url: '/v0/products', query: ['limit', 'access_token'] });
      expect(logs.lines.join('\n')).not.toContain(tenant.apiKey);
    });

    it('keeps the key out of the log when it comes without Authorization (401)', async () => {
      const res = await t
        .http()
        .get(`/v0/products/prod_00000000000000000000?access_token=${tenant.apiKey}`)
        .set('X-Request-Id', 'query-log-2');
      expectErrorEnvelope(res, 401, 'unauthorized');
      expect(logs.of('query-log-2')[0].req.url).toBe('/v0/products/prod_00000000000000000000');
      expect(logs.lines.join('\n')).not.toContain(tenant.apiKey);
    });

    it('does not print a parameter name shaped like a key', async () => {
      await t
        .http()
        .post(`/v0/products?${tenant.apiKey}`)
        .set(tenant.auth)
        .set('X-Request-Id', 'query-log-3')
        .send({ name: 'x' })
        .expect(400);
      expect(logs.of('query-log-3')[0].req.query).toEqual(['[redacted]']);
      expect(logs.lines.join('\n')).not.toContain(tenant.apiKey);
    });

    it('logs the path alone when there is no query string', async () => {
      await t
        .http()
        .get('/v0/products')
        .set(tenant.auth)
        .set('X-Request-Id', 'query-log-4')
        .expect(200);
      const [line] = logs.of('query-log-4');
      expect(line.req.url).toBe('/v0/products');
      expect(line.req.query).toBeUndefined();
    });
  });

  describe('unknown parameters', () => {
    const productNamed = async (name: string) => {
      const res = await t.http().get('/v0/products?limit=100').set(tenant.auth).expect(200);
      return (res.body.data as { name: string }[]).filter((p) => p.name === name);
    };

    it('refuses one on a POST, naming it, and creates nothing', async () => {
      const res = await t
        .http()
        .post('/v0/products?dryRun=true&x=1')
        .set(tenant.auth)
        .send({ name: 'Query POST' });
      expectErrorEnvelope(res, 400, 'validation_error', 'UNKNOWN_FIELD');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['dryRun', 'x']);
      expect(await productNamed('Query POST')).toHaveLength(0);
    });

    it('refuses one on a GET of one resource and on a PATCH, which changes nothing', async () => {
      const created = await t
        .http()
        .post('/v0/products')
        .set(tenant.auth)
        .send({ name: 'Query target' })
        .expect(201);
      const id = String(created.body.id);
      expectErrorEnvelope(
        await t.http().get(`/v0/products/${id}?expand=all`).set(tenant.auth),
        400,
        'validation_error',
        'UNKNOWN_FIELD',
      );
      expectErrorEnvelope(
        await t
          .http()
          .patch(`/v0/products/${id}?force=1`)
          .set(tenant.auth)
          .send({ name: 'Changed' }),
        400,
        'validation_error',
        'UNKNOWN_FIELD',
      );
      const after = await t.http().get(`/v0/products/${id}`).set(tenant.auth).expect(200);
      expect(after.body.name).toBe('Query target');
    });

    it('refuses one on a DELETE, which deletes nothing', async () => {
      const account = await createAccount(t, tenant);
      const res = await t
        .http()
        .delete(`/v0/externalAccounts/${account.id}?cascade=true`)
        .set(tenant.auth);
      expectErrorEnvelope(res, 400, 'validation_error', 'UNKNOWN_FIELD');
      await t.http().get(`/v0/externalAccounts/${account.id}`).set(tenant.auth).expect(200);
    });

    it('refuses one on the public health routes too', async () => {
      expectErrorEnvelope(await t.http().get('/healthz?verbose=1'), 400, 'validation_error');
      await t.http().get('/healthz').expect(200);
    });

    it('still takes the parameters a list declares', async () => {
      await t.http().get('/v0/products?limit=2&offset=0').set(tenant.auth).expect(200);
    });

    it('never puts a query string in an idempotency record', async () => {
      const res = await t
        .http()
        .post(`/v0/products?access_token=${tenant.apiKey}`)
        .set(tenant.auth)
        .set('Idempotency-Key', 'query-record')
        .send({ name: 'Query record' });
      expectErrorEnvelope(res, 400, 'validation_error', 'UNKNOWN_FIELD');
      await t
        .http()
        .post('/v0/products')
        .set(tenant.auth)
        .set('Idempotency-Key', 'query-record-2')
        .send({ name: 'Query record' })
        .expect(201);
      const records = await t.dataSource.query<{ request_path: string }[]>(
        'SELECT request_path FROM idempotency_records',
      );
      expect(records.length).toBeGreaterThan(0);
      for (const r of records) expect(r.request_path).not.toContain('?');
      expect(JSON.stringify(records)).not.toContain(tenant.apiKey);
    });
  });
});
