import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';

const API_HEADERS = {
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-permitted-cross-domain-policies': 'none',
};

describe(`security headers (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  it.each([
    ['a 200', () => t.http().get('/v0/products').set(tenant.auth), 200],
    ['a 201', () => t.http().post('/v0/products').set(tenant.auth).send({ name: 'x' }), 201],
    ['a 400', () => t.http().post('/v0/products').set(tenant.auth).send({}), 400],
    ['a 401', () => t.http().get('/v0/products'), 401],
    ['a 404 for an unknown route', () => t.http().get('/v0/nothing').set(tenant.auth), 404],
    [
      'a 413',
      () =>
        t
          .http()
          .post('/v0/products')
          .set(tenant.auth)
          .send({ name: 'x'.repeat(110 * 1024) }),
      413,
    ],
    ['/healthz', () => t.http().get('/healthz'), 200],
    ['the OpenAPI document', () => t.http().get('/docs-json'), 200],
  ])('puts the JSON API headers on %s', async (_label, send, status) => {
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.headers).toMatchObject(API_HEADERS);
    expect(res.headers['x-powered-by']).toBeUndefined();
    // What only acts on HTML documents is left out of JSON responses (Swagger UI's page has it).
    for (const name of [
      'origin-agent-cluster',
      'x-dns-prefetch-control',
      'x-download-options',
      'x-xss-protection',
    ]) {
      expect({ name, value: res.headers[name] }).toEqual({ name, value: undefined });
    }
    expect(res.headers.server).toBeUndefined();
  });

  it('relaxes the CSP for Swagger UI only, and its page and scripts load', async () => {
    const page = await t.http().get('/docs').expect(200);
    const csp = page.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['origin-agent-cluster']).toBe('?1');
    // Every script the page loads comes from this origin, which the policy allows.
    const scripts = [...page.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src).not.toMatch(/^(https?:)?\/\//);
      const res = await t.http().get(new URL(src, 'http://service/docs').pathname);
      expect({ src, status: res.status }).toEqual({ src, status: 200 });
    }
    expect(page.text).not.toMatch(/<script>[^<]/); // no inline script, which the CSP would block
  });
});
