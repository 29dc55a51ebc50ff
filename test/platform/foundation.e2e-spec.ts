import { ApiKeysService } from '../../src/auth/api-keys.service';
import { RouteTable } from '../../src/platform/route-table';
import { FaultsModule } from '../helpers/faults.module';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

describe(`service foundation (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startTestApp({}, { extraModules: [FaultsModule] });
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  describe('health and docs', () => {
    it('answers /healthz without a key', async () => {
      const res = await t.http().get('/healthz').expect(200);
      expect(res.body).toEqual({ status: 'ok' });
      expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{16,40}$/);
    });

    it('answers /readyz when the database answers', async () => {
      const res = await t.http().get('/readyz').expect(200);
      expect(res.body).toEqual({ status: 'ok', database: 'up' });
    });

    it('serves Swagger UI at /docs and an OpenAPI 3 document with the bearer scheme at /docs-json', async () => {
      const ui = await t.http().get('/docs').redirects(1);
      expect(ui.status).toBe(200);
      expect(ui.text).toContain('swagger');
      const doc = await t.http().get('/docs-json').expect(200);
      expect(doc.body.openapi).toMatch(/^3\./);
      expect(doc.body.components.securitySchemes.bearer).toMatchObject({
        type: 'http',
        scheme: 'bearer',
      });
      expect(doc.body.components.schemas.ErrorEnvelope.properties).toHaveProperty('requestId');
    });

    it('answers GET / without a key, pointing to the docs', async () => {
      const res = await t.http().get('/').expect(200);
      expect(res.body).toMatchObject({ docs: '/docs', openapi: '/docs-json', health: '/healthz' });
      await t.http().get(res.body.docs).redirects(1).expect(200);
    });

    it('keeps the key a reader authorized Swagger UI with across a reload', async () => {
      const init = await t.http().get('/docs/swagger-ui-init.js').expect(200);
      expect(init.text).toMatch(/"persistAuthorization":\s*true/);
    });
  });

  describe('authentication', () => {
    it('lets a key made by the service authenticate', async () => {
      await t.http().post('/v0/test-faults/echo').set(tenant.auth).send({ name: 'ok' }).expect(201);
    });

    it.each([
      ['no Authorization header', undefined],
      ['a malformed header', 'Token abc'],
      ['an empty bearer', 'Bearer '],
      ['a key of the wrong shape', 'Bearer sk_live_short'],
      ['an unknown key', 'Bearer sk_live_00000000000000000000000000000000'],
    ])('answers 401 with WWW-Authenticate for %s', async (_label, header) => {
      const req = t.http().get('/v0/test-faults/domain');
      if (header !== undefined) void req.set('Authorization', header);
      const res = await req;
      expectErrorEnvelope(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    });

    it('does not accept a key in the query string', async () => {
      const res = await t.http().get(`/v0/test-faults/domain?access_token=${tenant.apiKey}`);
      expectErrorEnvelope(res, 401, 'unauthorized');
    });

    it('answers 401 for a revoked key', async () => {
      const other = await t.createTenant('Revoked Org');
      await t.http().post('/v0/test-faults/echo').set(other.auth).send({ name: 'x' }).expect(201);
      await t.app.get(ApiKeysService).revokeApiKey(other.apiKeyId);
      const res = await t.http().post('/v0/test-faults/echo').set(other.auth).send({ name: 'x' });
      expectErrorEnvelope(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    });

    it('keeps every /v0 route behind the key', async () => {
      const routes = t.app
        .get(RouteTable)
        .list()
        .filter((r) => r.url.startsWith('/v0'));
      expect(routes.length).toBeGreaterThan(0);
      for (const route of routes) {
        const path = route.url.replace(/:[A-Za-z]+/g, 'x_0000000000000000');
        const res = await t.http()[route.method.toLowerCase() as 'get'](path).send({});
        expect({ route: `${route.method} ${route.url}`, status: res.status }).toEqual({
          route: `${route.method} ${route.url}`,
          status: 401,
        });
      }
    });
  });

  describe('error envelope from every source', () => {
    it('validation: names each field with a code', async () => {
      const res = await t
        .http()
        .post('/v0/test-faults/echo')
        .set(tenant.auth)
        .send({ count: 'many', tax: { rate: '1e-5' }, extra: 1 });
      expectErrorEnvelope(res, 400, 'validation_error');
      const byField = Object.fromEntries(res.body.errors.map((e: any) => [e.field, e.code]));
      expect(byField).toEqual({
        name: 'required',
        count: 'invalid_type',
        'tax.rate': 'invalid_decimal',
        extra: 'unknown_field',
      });
    });

    it('validation: a body that is not an object', async () => {
      const res = await t
        .http()
        .post('/v0/test-faults/echo')
        .set(tenant.auth)
        .send([{ name: 'x' }]);
      expectErrorEnvelope(res, 400, 'validation_error');
    });

    it('malformed JSON is a 400 MALFORMED_JSON', async () => {
      const res = await t
        .http()
        .post('/v0/test-faults/echo')
        .set(tenant.auth)
        .set('Content-Type', 'application/json')
        .send('{"name": ');
      expectErrorEnvelope(res, 400, 'validation_error', 'MALFORMED_JSON');
    });

    it('a body that is not JSON is a 415', async () => {
      const res = await t
        .http()
        .post('/v0/test-faults/echo')
        .set(tenant.auth)
        .set('Content-Type', 'text/plain')
        .send('name=x');
      expectErrorEnvelope(res, 415, 'unsupported_media_type');
    });

    it('a body over 100 KB is a 413', async () => {
      const res = await t
        .http()
        .post('/v0/test-faults/echo')
        .set(tenant.auth)
        .send({ name: 'x'.repeat(110 * 1024) });
      expectErrorEnvelope(res, 413, 'payload_too_large');
    });

    it('an unknown route is a 404', async () => {
      const res = await t.http().get('/v0/nothing-here').set(tenant.auth);
      expectErrorEnvelope(res, 404, 'not_found');
    });

    it.each([100, 900, 3000])('a path id of %i characters is a 404, not a 414', async (length) => {
      const res = await t
        .http()
        .get(`/v0/plans/plan_${'A'.repeat(length)}`)
        .set(tenant.auth);
      expectErrorEnvelope(res, 404, 'not_found');
    });

    it('a path id that is not valid percent-encoding is a 404', async () => {
      const res = await t.http().get('/v0/plans/plan_%zz').set(tenant.auth);
      expectErrorEnvelope(res, 404, 'not_found');
    });

    it('a malformed path id is a 404 before any query or body is looked at, on every route', async () => {
      const doc = (await t.http().get('/docs-json').expect(200)).body;
      const checked: string[] = [];
      for (const [path, item] of Object.entries<any>(doc.paths)) {
        if (!path.startsWith('/v0/') || !path.includes('{')) continue;
        for (const method of Object.keys(item).filter((m) =>
          ['get', 'post', 'patch', 'delete'].includes(m),
        )) {
          const target = path.replace(/\{[^}]+\}/g, 'available') + '?customerId=x&limit=-1';
          let req = (t.http() as any)[method](target).set(tenant.auth);
          if (method === 'post' || method === 'patch') req = req.send({ name: 12, unknown: true });
          const res = await req;
          expectErrorEnvelope(res, 404, 'not_found', 'RESOURCE_NOT_FOUND');
          checked.push(`${method} ${path}`);
        }
      }
      expect(checked).toEqual(
        expect.arrayContaining(['get /v0/plans/{id}', 'patch /v0/plans/{id}']),
      );
    });

    it('a known path with the wrong method is a 405 with Allow', async () => {
      const res = await t.http().delete('/v0/test-faults/domain').set(tenant.auth);
      expectErrorEnvelope(res, 405, 'method_not_allowed');
      expect(res.headers.allow).toBe('GET');
    });

    it('a domain error keeps its code', async () => {
      const res = await t.http().get('/v0/test-faults/domain').set(tenant.auth);
      expectErrorEnvelope(res, 409, 'conflict', 'PRICE_IN_USE');
    });

    it('a database error is a 500 without SQL', async () => {
      const res = await t.http().get('/v0/test-faults/database').set(tenant.auth);
      expectErrorEnvelope(res, 500, 'internal_error');
      expect(JSON.stringify(res.body)).not.toMatch(/no_such_table|secret_column/);
    });

    it('an unexpected error is a 500 without internals', async () => {
      const res = await t.http().get('/v0/test-faults/crash').set(tenant.auth);
      expectErrorEnvelope(res, 500, 'internal_error');
      expect(res.body.message).toBe('Internal server error');
    });
  });

  describe('request ids', () => {
    it('echoes a well-formed X-Request-Id in the header and the error body', async () => {
      const res = await t
        .http()
        .get('/v0/test-faults/domain')
        .set(tenant.auth)
        .set('X-Request-Id', 'abc.DEF-123_x');
      expect(res.headers['x-request-id']).toBe('abc.DEF-123_x');
      expect(res.body.requestId).toBe('abc.DEF-123_x');
    });

    it('replaces a malformed X-Request-Id with a generated one', async () => {
      const res = await t.http().get('/healthz').set('X-Request-Id', 'bad id with spaces');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
      const long = await t.http().get('/healthz').set('X-Request-Id', 'a'.repeat(129));
      expect(long.headers['x-request-id']).toMatch(/^req_/);
    });
  });
});

describe(`database outage (${TEST_DIALECT})`, () => {
  it('answers /readyz with 503 service_unavailable when the database does not answer', async () => {
    const t = await startTestApp();
    try {
      await t.dataSource.destroy();
      const res = await t.http().get('/readyz');
      expectErrorEnvelope(res, 503, 'service_unavailable');
      await t.http().get('/healthz').expect(200);
    } finally {
      await t.app.close().catch(() => undefined);
      await t.database.drop();
    }
  });
});
