import { RouteTable } from '../../src/platform/route-table';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

/**
 * Issue 17, finding 7: a path that does not exist answers 404, trailing slash included; 405
 * with Allow is only for a path that exists with another method (docs/api.md §3).
 */
describe('paths that do not exist', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'] as const;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  /** Every route of the product (Swagger UI's static tree aside), its parameters filled in. */
  function routes(): { method: string; path: string; url: string }[] {
    const list = t.app
      .get(RouteTable)
      .list()
      .filter((r) => !r.url.startsWith('/docs') && !r.url.includes('*'));
    return list.map((r) => ({ ...r, path: r.url.replace(/:[A-Za-z]+/g, 'x_0000000000000000') }));
  }

  function send(method: string, path: string) {
    const agent = t.http();
    const req =
      method === 'GET'
        ? agent.get(path)
        : method === 'POST'
          ? agent.post(path)
          : method === 'PATCH'
            ? agent.patch(path)
            : method === 'PUT'
              ? agent.put(path)
              : agent.delete(path);
    return req.set(tenant.auth);
  }

  it('covers the routes of every module', () => {
    const urls = new Set(routes().map((r) => r.url));
    for (const url of ['/v0/products', '/v0/plans/:id', '/v0/externalAccounts/:id', '/healthz']) {
      expect(urls).toContain(url);
    }
  });

  it('answers 404, not 405, for every route spelled with a trailing slash, whatever the method', async () => {
    const seen: string[] = [];
    for (const route of routes()) {
      for (const method of METHODS) {
        const res = await send(method, `${route.path}/`);
        seen.push(`${method} ${route.path}/ ${res.status} ${res.headers.allow ?? ''}`);
        expectErrorEnvelope(res, 404, 'not_found', 'ROUTE_NOT_FOUND');
        expect(res.headers.allow).toBeUndefined();
      }
    }
    expect(seen.length).toBeGreaterThan(0);
  });

  it('answers GET /v0/products/ with 404 naming the path', async () => {
    const res = await send('GET', '/v0/products/');
    expectErrorEnvelope(res, 404, 'not_found', 'ROUTE_NOT_FOUND');
    expect(res.body.message).toContain('/v0/products/');
  });

  it('keeps 405 with Allow for every real path asked with a method it does not take', async () => {
    const byPath = new Map<string, Set<string>>();
    for (const route of routes()) {
      const methods = byPath.get(route.path) ?? new Set<string>();
      methods.add(route.method);
      byPath.set(route.path, methods);
    }
    for (const [path, methods] of byPath) {
      const allowed = [...methods].sort().join(', ');
      for (const method of METHODS.filter((m) => !methods.has(m))) {
        const res = await send(method, path);
        expect({ route: `${method} ${path}`, status: res.status }).toEqual({
          route: `${method} ${path}`,
          status: 405,
        });
        expectErrorEnvelope(res, 405, 'method_not_allowed');
        expect(res.headers.allow).toBe(allowed);
      }
    }
  });

  it('answers 404 for doubled and missing segments', async () => {
    for (const path of ['/v0//products', '/v0/products//', '/v0/', '/v0', '/v0/products/x/y']) {
      const res = await send('GET', path);
      expectErrorEnvelope(res, 404, 'not_found');
      expect(res.headers.allow).toBeUndefined();
    }
  });
});
