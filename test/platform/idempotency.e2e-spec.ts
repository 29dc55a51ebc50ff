import { Controller, Get, Module, Post } from '@nestjs/common';
import { Product } from '../../src/catalog/entities/product.entity';
import { ProductsService } from '../../src/catalog/products.service';
import { IdempotencyRecord } from '../../src/platform/idempotency/idempotency-record.entity';
import { IdempotencyService } from '../../src/platform/idempotency/idempotency.service';
import { createAccount } from '../helpers/external-accounts-factory';
import { createResource } from '../helpers/resources';
import { delayCalls, failNextCall } from '../helpers/slow-calls';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

let counter = 0;
/** A fresh key per call, so tests never share one by accident. */
const newKey = () => `test-key-${Date.now()}-${++counter}`;

describe(`Idempotency-Key (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const productsOf = (organizationId: string) =>
    t.db.read((m) => m.find(Product, { where: { organizationId } }));
  /** The product create waits `ms` before its transaction: the key stays claimed meanwhile. */
  const slowCreates = (ms: number) => delayCalls(ProductsService.prototype, 'create', ms);
  const recordOf = (organizationId: string, key: string) =>
    t.db.read((m) => m.findOneBy(IdempotencyRecord, { organizationId, idempotencyKey: key }));
  const post = (key: string | undefined, body: object, who: TestTenant = tenant) => {
    const req = t.http().post('/v0/products').set(who.auth);
    if (key !== undefined) void req.set('Idempotency-Key', key);
    return req.send(body);
  };

  describe('retries', () => {
    it('replays a retried POST: one product, the same status, body, Location and ETag', async () => {
      const key = newKey();
      const before = (await productsOf(tenant.organizationId)).length;
      const first = await post(key, { name: 'Retry me', metadata: { a: 1 } });
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();

      const second = await post(key, { name: 'Retry me', metadata: { a: 1 } });
      expect(second.status).toBe(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.text).toBe(first.text);
      expect(second.headers.location).toBe(first.headers.location);
      expect(second.headers.location).toBe(`/v0/products/${first.body.id}`);
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(second.headers['content-type']).toBe(first.headers['content-type']);
      // The replay is its own request, and names the one it repeats.
      expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
      expect(second.headers['original-request-id']).toBe(first.headers['x-request-id']);
      expect((await productsOf(tenant.organizationId)).length).toBe(before + 1);
    });

    it('replays Location from the answer stored with the write, before the answer leaves', async () => {
      // The answer stored in the write's own commit is all a retry finds when it comes between
      // that commit and the answer leaving, or when the process died in between: here the later
      // store of the answer as sent (onSend) does not happen.
      jest.spyOn(t.app.get(IdempotencyService), 'complete').mockResolvedValueOnce(undefined);
      const key = newKey();
      const first = await post(key, { name: 'Stored with its commit' });
      expect(first.status).toBe(201);
      expect(first.headers.location).toBe(`/v0/products/${first.body.id}`);
      const record = await recordOf(tenant.organizationId, key);
      expect(record?.state).toBe('complete');
      expect(record?.responseHeaders).toEqual({
        'content-type': 'application/json; charset=utf-8',
        location: first.headers.location,
      });

      const retry = await post(key, { name: 'Stored with its commit' });
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.headers.location).toBe(first.headers.location);
      expect(retry.text).toBe(first.text);
    });

    it('treats the same fields in another order as the same request', async () => {
      const key = newKey();
      const first = await post(key, { name: 'Order', metadata: { x: 1, y: 'two' } }).expect(201);
      const second = await post(key, { metadata: { y: 'two', x: 1 }, name: 'Order' }).expect(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.body).toEqual(first.body);
    });

    it('runs every request sent without a key', async () => {
      const before = (await productsOf(tenant.organizationId)).length;
      const a = await post(undefined, { name: 'No key' }).expect(201);
      const b = await post(undefined, { name: 'No key' }).expect(201);
      expect(a.body.id).not.toBe(b.body.id);
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect((await productsOf(tenant.organizationId)).length).toBe(before + 2);
    });

    it('replays a PATCH as it first answered, even after later changes', async () => {
      const product = await post(undefined, { name: 'Patch me' }).expect(201);
      const key = newKey();
      const path = `/v0/products/${product.body.id}`;
      const first = await t
        .http()
        .patch(path)
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .send({ metadata: { step: 1 } })
        .expect(200);
      await t
        .http()
        .patch(path)
        .set(tenant.auth)
        .send({ metadata: { step: 2 } })
        .expect(200);
      const retry = await t
        .http()
        .patch(path)
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .send({ metadata: { step: 1 } })
        .expect(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      const now = await t.http().get(path).set(tenant.auth).expect(200);
      expect(now.body.metadata).toEqual({ step: 2 });
    });

    it('replays a DELETE instead of answering 404 the second time', async () => {
      // An external account answers 404 once deleted (a plan or a price answers the same again).
      const account = await createAccount(t, tenant);
      const key = newKey();
      const path = `/v0/externalAccounts/${account.id}`;
      const first = await t.http().delete(path).set(tenant.auth).set('Idempotency-Key', key);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ id: account.id, object: 'externalBankAccount', deleted: true });
      const retry = await t.http().delete(path).set(tenant.auth).set('Idempotency-Key', key);
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      await t.http().delete(path).set(tenant.auth).expect(404);
    });

    it('treats a DELETE without a body and one with {} as the same request', async () => {
      const price = await createResource(t, tenant, 'price');
      const key = newKey();
      const path = `/v0/prices/${price.id}`;
      await t.http().delete(path).set(tenant.auth).set('Idempotency-Key', key).expect(204);
      const retry = await t
        .http()
        .delete(path)
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .send({})
        .expect(204);
      expect(retry.headers['idempotent-replayed']).toBe('true');
    });

    it('replays a 204 without a body', async () => {
      // A price's DELETE answers 204.
      const price = await createResource(t, tenant, 'price');
      const key = newKey();
      const path = `/v0/prices/${price.id}`;
      const first = await t.http().delete(path).set(tenant.auth).set('Idempotency-Key', key);
      expect(first.status).toBe(204);
      const retry = await t.http().delete(path).set(tenant.auth).set('Idempotency-Key', key);
      expect(retry.status).toBe(204);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.text).toBe('');
      expect(retry.headers['content-type']).toBeUndefined();
    });
  });

  describe('a key reused for another request', () => {
    it('answers 422 IDEMPOTENCY_KEY_REUSED to a different body and creates nothing', async () => {
      const key = newKey();
      await post(key, { name: 'Original' }).expect(201);
      const before = (await productsOf(tenant.organizationId)).length;
      const res = await post(key, { name: 'Something else' });
      expectErrorEnvelope(res, 422, 'idempotency_error', 'IDEMPOTENCY_KEY_REUSED');
      expect(res.body.message).toContain('with a different body');
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect((await productsOf(tenant.organizationId)).length).toBe(before);
    });

    it('answers 422 to a different method or path', async () => {
      const key = newKey();
      const created = await post(key, { name: 'Original' }).expect(201);
      const patch = await t
        .http()
        .patch(`/v0/products/${created.body.id}`)
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .send({ name: 'Original' });
      expectErrorEnvelope(patch, 422, 'idempotency_error', 'IDEMPOTENCY_KEY_REUSED');
      expect(patch.body.message).toContain('for another request (POST /v0/products)');
      const query = await t
        .http()
        .post('/v0/products?x=1')
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .send({ name: 'Original' });
      // A query parameter the route does not take is refused before the key is looked at.
      expectErrorEnvelope(query, 400, 'validation_error', 'UNKNOWN_FIELD');
      const get = await t.http().get(`/v0/products/${created.body.id}`).set(tenant.auth);
      expect(get.body.name).toBe('Original');
    });

    it('keeps keys per organization: another organization may use the same key', async () => {
      const other = await t.createTenant('Other Org');
      const key = newKey();
      const mine = await post(key, { name: 'Mine' }).expect(201);
      const theirs = await post(key, { name: 'Theirs' }, other).expect(201);
      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      expect(theirs.body.id).not.toBe(mine.body.id);
      expect((await productsOf(other.organizationId)).map((p) => p.name)).toEqual(['Theirs']);
    });
  });

  describe('concurrent requests with one key', () => {
    it('ten at once create one product; the others get 409 IDEMPOTENCY_KEY_IN_USE or the replay', async () => {
      const key = newKey();
      const before = (await productsOf(tenant.organizationId)).length;
      slowCreates(300);
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => post(key, { name: 'Concurrent' })),
      );
      const created = responses.filter(
        (r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined,
      );
      expect(created).toHaveLength(1);
      for (const res of responses) {
        if (res === created[0]) continue;
        if (res.status === 409) {
          expectErrorEnvelope(res, 409, 'conflict', 'IDEMPOTENCY_KEY_IN_USE');
          expect(res.headers['retry-after']).toBe('1');
        } else {
          expect({ status: res.status, replayed: res.headers['idempotent-replayed'] }).toEqual({
            status: 201,
            replayed: 'true',
          });
          expect(res.body).toEqual(created[0].body);
        }
      }
      // With the first one holding the key for 300 ms, at least one retry found it running.
      expect(responses.some((r) => r.status === 409)).toBe(true);
      expect((await productsOf(tenant.organizationId)).length).toBe(before + 1);
    });

    it('stores the response of a request whose client hung up, so its retry does not run twice', async () => {
      const key = newKey();
      const body = { name: 'Abandoned' };
      const before = (await productsOf(tenant.organizationId)).length;
      slowCreates(300);
      await expect(post(key, body).timeout(100)).rejects.toThrow(/Timeout/);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const retry = await post(key, body);
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect((await productsOf(tenant.organizationId)).length).toBe(before + 1);
    });

    it('answers 409 while the first request runs, then replays it once it is done', async () => {
      const key = newKey();
      slowCreates(600);
      const first = post(key, { name: 'Slow' }).then((r) => r);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const during = await post(key, { name: 'Slow' });
      expectErrorEnvelope(during, 409, 'conflict', 'IDEMPOTENCY_KEY_IN_USE');
      const done = await first;
      expect(done.status).toBe(201);
      const after = await post(key, { name: 'Slow' });
      expect(after.headers['idempotent-replayed']).toBe('true');
      expect(after.body).toEqual(done.body);
    });
  });

  describe('what is stored', () => {
    it('does not store a 5xx: the retry runs again, and is itself stored', async () => {
      const key = newKey();
      const body = { name: 'Flaky' };
      failNextCall(ProductsService.prototype, 'create');
      const failed = await post(key, body);
      expectErrorEnvelope(failed, 500, 'internal_error');
      expect(await recordOf(tenant.organizationId, key)).toBeNull();
      const retried = await post(key, body);
      expect(retried.status).toBe(201);
      expect(retried.headers['idempotent-replayed']).toBeUndefined();
      const again = await post(key, body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(retried.body);
    });

    it('stores a 4xx and replays it with the replay’s own requestId', async () => {
      const key = newKey();
      const first = await post(key, { name: '   ' });
      expectErrorEnvelope(first, 400, 'validation_error', 'BLANK');
      const retry = await post(key, { name: '   ' });
      expectErrorEnvelope(retry, 400, 'validation_error', 'BLANK');
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.headers['original-request-id']).toBe(first.headers['x-request-id']);
      expect({ ...retry.body, requestId: undefined }).toEqual({
        ...first.body,
        requestId: undefined,
      });
      const missing = `/v0/products/prod_00000000000000000000000000`;
      const notFound = await t
        .http()
        .patch(missing)
        .set(tenant.auth)
        .set('Idempotency-Key', key + '-404')
        .send({ name: 'x' });
      expectErrorEnvelope(notFound, 404, 'not_found');
      const notFoundAgain = await t
        .http()
        .patch(missing)
        .set(tenant.auth)
        .set('Idempotency-Key', key + '-404')
        .send({ name: 'x' });
      expectErrorEnvelope(notFoundAgain, 404, 'not_found');
      expect(notFoundAgain.headers['idempotent-replayed']).toBe('true');
    });

    it('does not use up the key on a request refused before it reached the API (415, 401)', async () => {
      const key = newKey();
      const refused = await t
        .http()
        .post('/v0/products')
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .set('Content-Type', 'text/plain')
        .send('name=x');
      expectErrorEnvelope(refused, 415, 'unsupported_media_type');
      const unauthenticated = await t
        .http()
        .post('/v0/products')
        .set('Idempotency-Key', key)
        .send({ name: 'x' });
      expectErrorEnvelope(unauthenticated, 401, 'unauthorized');
      const ok = await post(key, { name: 'Now valid' });
      expect(ok.status).toBe(201);
      expect(ok.headers['idempotent-replayed']).toBeUndefined();
    });
  });

  describe('the key itself', () => {
    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['not ASCII', 'clé-été'],
    ])(
      'answers 400 INVALID_IDEMPOTENCY_KEY to a key that is %s, and creates nothing',
      async (_l, key) => {
        const before = (await productsOf(tenant.organizationId)).length;
        const res = await post(key, { name: 'Bad key' });
        expectErrorEnvelope(res, 400, 'validation_error', 'INVALID_IDEMPOTENCY_KEY');
        expect(res.body.errors).toEqual([
          expect.objectContaining({ field: 'Idempotency-Key', code: 'invalid_idempotency_key' }),
        ]);
        expect((await productsOf(tenant.organizationId)).length).toBe(before);
      },
    );

    it.each([
      ['two different keys', ['k1', 'k2']],
      ['the same key twice', ['k3', 'k3']],
    ])(
      'answers 400 INVALID_IDEMPOTENCY_KEY to the header sent twice (%s), and creates nothing',
      async (_l, keys) => {
        const before = (await productsOf(tenant.organizationId)).length;
        const unique = keys.map((k) => `${newKey()}-${k}`);
        if (keys[0] === keys[1]) unique[1] = unique[0];
        const res = await t
          .http()
          .post('/v0/products')
          .set(tenant.auth)
          // Sent as two header lines (superagent passes the array to Node's setHeader).
          .set('Idempotency-Key', unique as unknown as string)
          .send({ name: 'Two keys' });
        expectErrorEnvelope(res, 400, 'validation_error', 'INVALID_IDEMPOTENCY_KEY');
        expect((await productsOf(tenant.organizationId)).length).toBe(before);
        // Nor is the joined text a key of its own that a later request could replay.
        await post(unique.join(', '), { name: 'Two keys' }).expect(201);
        const again = await post(unique.join(', '), { name: 'Two keys' }).expect(201);
        expect(again.headers['idempotent-replayed']).toBe('true');
      },
    );

    it('accepts 255 characters with spaces and punctuation', async () => {
      const key = `${newKey()} ;:/=+`.padEnd(255, 'x');
      await post(key, { name: 'Long key' }).expect(201);
      const retry = await post(key, { name: 'Long key' }).expect(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
    });

    it('ignores Idempotency-Key on GET', async () => {
      const res = await t.http().get('/v0/products').set(tenant.auth).set('Idempotency-Key', '');
      expect(res.status).toBe(200);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    });
  });

  describe('expiry and crashes', () => {
    it('forgets a record after 24 hours: the key may then be used for another request', async () => {
      const key = newKey();
      await post(key, { name: 'Old' }).expect(201);
      const record = await recordOf(tenant.organizationId, key);
      expect(record!.expiresAt.getTime() - record!.createdAt.getTime()).toBe(24 * 3600 * 1000);
      await t.db.transaction((m) =>
        m.update(IdempotencyRecord, { id: record!.id }, { expiresAt: new Date(Date.now() - 1000) }),
      );
      const res = await post(key, { name: 'New' });
      expect(res.status).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(res.body.name).toBe('New');
    });

    it('lets a retry run when the request holding the key is past its lock (its process died)', async () => {
      const key = newKey();
      const body = { name: 'Orphan' };
      // A claim made two minutes ago whose request never finished.
      const claim = await t.app.get(IdempotencyService).claim(
        {
          tenant: { organizationId: tenant.organizationId, livemode: true },
          key,
          method: 'POST',
          path: '/v0/products',
          body,
          requestId: 'req_dead',
        },
        new Date(Date.now() - 120_000),
      );
      expect(claim.kind).toBe('owner');
      const res = await post(key, body);
      expect(res.status).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      const replay = await post(key, body);
      expect(replay.headers['idempotent-replayed']).toBe('true');
    });

    it('the sweep deletes expired records and keeps live ones', async () => {
      const expired = newKey();
      const live = newKey();
      await post(expired, { name: 'Expired' }).expect(201);
      await post(live, { name: 'Live' }).expect(201);
      await t.db.transaction((m) =>
        m.update(
          IdempotencyRecord,
          { organizationId: tenant.organizationId, idempotencyKey: expired },
          { expiresAt: new Date(Date.now() - 1000) },
        ),
      );
      const deleted = await t.app.get(IdempotencyService).sweep();
      expect(deleted).toBeGreaterThanOrEqual(1);
      expect(await recordOf(tenant.organizationId, expired)).toBeNull();
      expect(await recordOf(tenant.organizationId, live)).not.toBeNull();
    });
  });

  describe('every write route honours the header', () => {
    @Controller('v0/forgotten')
    class ForgottenController {
      @Get()
      list() {
        return [];
      }

      @Post()
      create() {
        return {};
      }
    }

    @Module({ controllers: [ForgottenController] })
    class ForgottenModule {}

    it('the service refuses to start with a /v0 write route that lacks @Idempotent()', async () => {
      await expect(startTestApp({}, { extraModules: [ForgottenModule] })).rejects.toThrow(
        'Write routes without @Idempotent(): ForgottenController.create.',
      );
    });
  });
});
