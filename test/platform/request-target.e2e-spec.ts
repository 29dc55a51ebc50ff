import type { AddressInfo } from 'node:net';
import { sendAsWritten } from '../helpers/raw-http';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';

/**
 * Issue 17, finding 2: whether a request is idempotent follows the route it reaches, however the
 * request target is spelled. Sent with node:http, which puts `path` on the request line as it is
 * (supertest would normalize it).
 */
describe(`Idempotency-Key whatever the request target's spelling (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  const send = (method: string, target: string, headers: Record<string, string>, body?: unknown) =>
    sendAsWritten(port, method, target, { ...tenant.auth, ...headers }, body);

  const productCount = async (name: string) => {
    const res = await t.http().get('/v0/products?limit=100').set(tenant.auth).expect(200);
    return (res.body.data as { name: string }[]).filter((p) => p.name === name).length;
  };

  it.each([
    ['the absolute form', () => `http://127.0.0.1:${port}/v0/products`],
    ['a percent-encoded path', () => '/v%30/products'],
    ['a percent-encoded path with the absolute form', () => `http://localhost/%76%30/products`],
  ])('creates one resource for two identical keyed requests in %s', async (_label, target) => {
    const name = `Target ${_label}`;
    const headers = { 'idempotency-key': `target-${_label}` };
    const first = await send('POST', target(), headers, { name });
    expect(first.status).toBe(201);
    const second = await send('POST', target(), headers, { name });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.id).toBe(first.body.id);
    expect(await productCount(name)).toBe(1);
  });

  it('treats the same key on two spellings of one route as one request', async () => {
    const name = 'Target spelled two ways';
    const headers = { 'idempotency-key': 'target-two-spellings' };
    const first = await send('POST', '/v0/products', headers, { name });
    expect(first.status).toBe(201);
    const second = await send('POST', '/v%30/products', headers, { name });
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.id).toBe(first.body.id);
    const third = await send('POST', `http://127.0.0.1:${port}/v0/products`, headers, { name });
    expect(third.body.id).toBe(first.body.id);
    expect(await productCount(name)).toBe(1);
  });

  it('records a PATCH under the path of the resource it reached', async () => {
    const created = await send('POST', '/v0/products', {}, { name: 'Patched' });
    const id = String(created.body.id);
    const headers = { 'idempotency-key': 'target-patch' };
    const first = await send('PATCH', `/v0/products/${id}`, headers, { name: 'Patched 1' });
    expect(first.status).toBe(200);
    const encodedId = [...id].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    const second = await send('PATCH', `/%76%30/products/${encodedId}`, headers, {
      name: 'Patched 1',
    });
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    const [record] = await t.dataSource.query<{ request_path: string }[]>(
      `SELECT request_path FROM idempotency_records WHERE idempotency_key = 'target-patch'`,
    );
    expect(record.request_path).toBe(`/v0/products/${id}`);
  });

  it('answers a wrong method on a known route 405 however the target is spelled', async () => {
    for (const target of [
      '/v0/products',
      '/v%30/products',
      `http://127.0.0.1:${port}/v0/products`,
      `http://127.0.0.1:${port}/%76%30/products`,
    ]) {
      const answer = await send('DELETE', target, {});
      expect({ target, status: answer.status, allow: answer.headers.allow }).toEqual({
        target,
        status: 405,
        allow: 'GET, POST',
      });
      expect(answer.body).toMatchObject({ error: 'method_not_allowed' });
    }
    // A path that does not exist stays a 404, spelled either way.
    expect((await send('DELETE', '/v%30/nothing', {})).status).toBe(404);
    expect((await send('DELETE', `http://127.0.0.1:${port}/v0/products/`, {})).status).toBe(404);
  });
});
