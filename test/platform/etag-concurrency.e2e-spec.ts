import { ProductsRepository } from '../../src/catalog/products.repository';
import { etagOf } from '../../src/common/etag';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import { createAccount, usAccount } from '../helpers/external-accounts-factory';
import { createResource } from '../helpers/resources';
import { delayCalls } from '../helpers/slow-calls';

describe(`ETag, If-Match and concurrent writes (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const create = async (body: object = { name: 'API access' }) =>
    (await t.http().post('/v0/products').set(tenant.auth).send(body).expect(201)).body as {
      id: string;
      [k: string]: unknown;
    };
  const get = (id: string) => t.http().get(`/v0/products/${id}`).set(tenant.auth);
  /** PATCHes of products pause `ms` between their locked read and their write. */
  const slowProductUpdates = (ms: number) => delayCalls(ProductsRepository.prototype, 'update', ms);

  describe('ETag', () => {
    it('is etagOf(body) on GET, POST, PATCH and DELETE of one resource', async () => {
      // An external account: every one of the four answers it with a body.
      const url = (id: string) => `/v0/externalAccounts/${id}`;
      const created = await t
        .http()
        .post('/v0/externalAccounts')
        .set(tenant.auth)
        .send(usAccount());
      expect(created.headers.etag).toBe(etagOf(created.body));
      expect(created.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
      const read = await t.http().get(url(created.body.id)).set(tenant.auth).expect(200);
      expect(read.headers.etag).toBe(created.headers.etag);
      const patched = await t
        .http()
        .patch(url(created.body.id))
        .set(tenant.auth)
        .send({ metadata: { a: 1 } })
        .expect(200);
      expect(patched.headers.etag).toBe(etagOf(patched.body));
      expect(patched.headers.etag).not.toBe(read.headers.etag);
      const deleted = await t.http().delete(url(created.body.id)).set(tenant.auth).expect(200);
      expect(deleted.headers.etag).toBe(etagOf(deleted.body));
    });

    // PostgreSQL's jsonb gives keys back shortest first; the tag hashes the text sent, so every
    // view must put metadata in one order whatever the storage did to it.
    it.each([
      ['/v0/products', { name: 'Reordered' }],
      ['/v0/externalAccounts', usAccount()],
    ])('on %s, is the same when metadata is read back from storage', async (path, body) => {
      const metadata = { zeta_is_long: 1, b: 'two', aa: true, '10': 'ten', '9': 'nine' };
      const created = await t
        .http()
        .post(path)
        .set(tenant.auth)
        .send({ ...body, metadata })
        .expect(201);
      const url = `${path}/${created.body.id}`;
      const read = await t.http().get(url).set(tenant.auth).expect(200);
      expect(read.text).toBe(created.text);
      expect(read.headers.etag).toBe(created.headers.etag);
      const patched = await t
        .http()
        .patch(url)
        .set(tenant.auth)
        .set('If-Match', read.headers.etag)
        .send({ metadata: { a_new_longer_key: 'x', b: null, c: 3 } })
        .expect(200);
      const reread = await t.http().get(url).set(tenant.auth).expect(200);
      expect(reread.text).toBe(patched.text);
      expect(reread.headers.etag).toBe(patched.headers.etag);
      expect(patched.headers.etag).toBe(etagOf(patched.body));
    });

    it('is not on lists, errors or empty responses', async () => {
      await create();
      const list = await t.http().get('/v0/products').set(tenant.auth).expect(200);
      expect(list.headers.etag).toBeUndefined();
      const missing = await get('prod_00000000000000000000000000');
      expectErrorEnvelope(missing, 404, 'not_found');
      expect(missing.headers.etag).toBeUndefined();
      // A price's DELETE answers 204.
      const price = await createResource(t, tenant, 'price');
      const empty = await t.http().delete(`/v0/prices/${price.id}`).set(tenant.auth).expect(204);
      expect(empty.headers.etag).toBeUndefined();
      const health = await t.http().get('/healthz').expect(200);
      expect(health.headers.etag).toBeUndefined();
    });
  });

  describe('If-None-Match on GET', () => {
    it('answers 304 without a body when the tag is current, 200 when it is not', async () => {
      const product = await create();
      const read = await get(product.id).expect(200);
      const etag = read.headers.etag;
      for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const res = await get(product.id).set('If-None-Match', header);
        expect({ header, status: res.status }).toEqual({ header, status: 304 });
        expect(res.text).toBe('');
        expect(res.headers.etag).toBe(etag);
      }
      const stale = await get(product.id).set('If-None-Match', '"not-the-tag"').expect(200);
      expect(stale.body).toEqual(read.body);
    });
  });

  describe('If-Match on PATCH and DELETE', () => {
    it('applies a PATCH whose If-Match is current, or *', async () => {
      const product = await create();
      const etag = (await get(product.id)).headers.etag;
      const res = await t
        .http()
        .patch(`/v0/products/${product.id}`)
        .set(tenant.auth)
        .set('If-Match', etag)
        .send({ name: 'Renamed' })
        .expect(200);
      await t
        .http()
        .patch(`/v0/products/${product.id}`)
        .set(tenant.auth)
        .set('If-Match', '*')
        .send({ metadata: { k: 'v' } })
        .expect(200);
      expect(res.body.name).toBe('Renamed');
    });

    it('answers 412 precondition_failed to a stale If-Match and changes nothing', async () => {
      const product = await create();
      const staleTag = (await get(product.id)).headers.etag;
      await t
        .http()
        .patch(`/v0/products/${product.id}`)
        .set(tenant.auth)
        .send({ metadata: { by: 'someone else' } })
        .expect(200);
      const current = await get(product.id);
      const res = await t
        .http()
        .patch(`/v0/products/${product.id}`)
        .set(tenant.auth)
        .set('If-Match', staleTag)
        .send({ name: 'Overwrite' });
      expectErrorEnvelope(res, 412, 'precondition_failed', 'ETAG_MISMATCH');
      expect(res.headers.etag).toBeUndefined();
      const after = await get(product.id);
      expect(after.body).toEqual(current.body);
    });

    it('answers 412 to a DELETE with a stale If-Match and keeps the resource; deletes with the current one', async () => {
      // An external account: once deleted it answers 404.
      const account = await createAccount(t, tenant);
      const url = `/v0/externalAccounts/${account.id}`;
      const getAccount = () => t.http().get(url).set(tenant.auth);
      const staleTag = (await getAccount()).headers.etag;
      await t.http().patch(url).set(tenant.auth).send({ accountHolderName: 'Changed' }).expect(200);
      const res = await t.http().delete(url).set(tenant.auth).set('If-Match', staleTag);
      expectErrorEnvelope(res, 412, 'precondition_failed');
      await getAccount().expect(200);
      const current = (await getAccount()).headers.etag;
      await t.http().delete(url).set(tenant.auth).set('If-Match', current).expect(200);
      await getAccount().expect(404);
    });

    it('lets exactly one of ten concurrent PATCHes with the same If-Match win', async () => {
      const product = await create();
      const etag = (await get(product.id)).headers.etag;
      slowProductUpdates(50);
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t
            .http()
            .patch(`/v0/products/${product.id}`)
            .set(tenant.auth)
            .set('If-Match', etag)
            .send({ name: `Writer ${i}` }),
        ),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([200, ...Array(9).fill(412)]);
      const winner = responses.find((r) => r.status === 200)!;
      expect((await get(product.id)).body.name).toBe(winner.body.name);
    });
  });

  describe('concurrent PATCHes', () => {
    it('never lose an update: twenty concurrent metadata PATCHes with distinct keys all survive', async () => {
      const product = await create({ name: 'Busy', metadata: { initial: true } });
      // The pause between reading and writing would lose updates without the row lock.
      slowProductUpdates(10);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          t
            .http()
            .patch(`/v0/products/${product.id}`)
            .set(tenant.auth)
            .set('Idempotency-Key', `concurrent-${product.id}-${i}`)
            .send({ metadata: { [`key${i}`]: i } }),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
      const expected: Record<string, unknown> = { initial: true };
      for (let i = 0; i < 20; i++) expected[`key${i}`] = i;
      expect((await get(product.id)).body.metadata).toEqual(expected);
    });
  });
});
