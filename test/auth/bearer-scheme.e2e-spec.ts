import { AddressInfo } from 'node:net';
import { exchange, expectRawEnvelope } from '../helpers/raw-http';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

/**
 * Issue 17, finding 7: the Authorization header is read as RFC 7235 / RFC 6750 define it. The
 * scheme name is case-insensitive and may be followed by one or more spaces; anything else
 * (a tab, a second token, another scheme) stays a 401 with WWW-Authenticate.
 */
describe(`the bearer scheme on ${TEST_DIALECT}`, () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  it.each([
    ['lower case', (k: string) => `bearer ${k}`],
    ['upper case', (k: string) => `BEARER ${k}`],
    ['mixed case', (k: string) => `bEaReR ${k}`],
    ['several spaces', (k: string) => `Bearer   ${k}`],
  ])('accepts the scheme in %s', async (_label, header) => {
    // Twice: the first request looks the key up, the second is answered from the cache.
    for (let i = 0; i < 2; i++) {
      const res = await t.http().get('/v0/products').set('Authorization', header(tenant.apiKey));
      expect(res.status).toBe(200);
    }
    const created = await t
      .http()
      .post('/v0/products')
      .set('Authorization', header(tenant.apiKey))
      .send({ name: 'Lower-case bearer' });
    expect(created.status).toBe(201);
  });

  it.each([
    ['a tab after the scheme', (k: string) => `Bearer\t${k}`],
    ['no space after the scheme', (k: string) => `Bearer${k}`],
    ['a second token', (k: string) => `Bearer ${k} extra`],
    ['another scheme', (k: string) => `Basic ${k}`],
    ['the scheme alone', () => 'Bearer'],
    ['a comma-separated list', (k: string) => `Bearer ${k}, Bearer ${k}`],
  ])('answers 401 with WWW-Authenticate for %s', async (_label, header) => {
    const res = await t.http().get('/v0/products').set('Authorization', header(tenant.apiKey));
    expectErrorEnvelope(res, 401, 'unauthorized');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('answers 401 to two Authorization headers, whichever key comes first', async () => {
    // Node keeps only the first; a proxy may keep the last. Neither decides who the caller is.
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const other = await t.createTenant('Other');
    const twice = (first: string, second: string) =>
      'GET /v0/products HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n' +
      `Authorization: Bearer ${first}\r\nAuthorization: Bearer ${second}\r\n\r\n`;
    for (const [first, second] of [
      [tenant.apiKey, other.apiKey],
      [other.apiKey, tenant.apiKey],
      [tenant.apiKey, tenant.apiKey],
      [tenant.apiKey, 'sk_test_unknownunknownunknownunknown00'],
    ]) {
      const { responses } = await exchange(port, twice(first, second));
      expectRawEnvelope(responses[0], 401, 'unauthorized');
      expect(responses[0].body.message).toMatch(/send it once/);
      expect(responses[0].headers['www-authenticate']).toMatch(/^Bearer/);
    }
    // Sent once, the same key is let in.
    const { responses } = await exchange(
      port,
      'GET /v0/products HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n' +
        `Authorization: Bearer ${tenant.apiKey}\r\n\r\n`,
    );
    expect(responses[0].status).toBe(200);
  });
});
