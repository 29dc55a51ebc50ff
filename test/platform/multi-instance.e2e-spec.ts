import { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { createApp } from '../../src/app.setup';
import { Product } from '../../src/catalog/entities/product.entity';
import { ProductsRepository } from '../../src/catalog/products.repository';
import { ProductsService } from '../../src/catalog/products.service';
import { delayCalls } from '../helpers/slow-calls';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

/**
 * Two instances of the service on one database: two complete applications (createApp, as
 * main.ts builds it), each with its own connection pool (PostgreSQL) or its own connection to
 * the same database file (SQLite), sharing nothing but the database.
 */
describe(`two instances on one ${TEST_DIALECT} database`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let second: NestFastifyApplication;

  beforeAll(async () => {
    t = await startTestApp();
    second = await createApp(t.config);
    tenant = await t.createTenant();
  });
  afterAll(async () => {
    await second.close();
    await t.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const viaFirst = () => t.http();
  const viaSecond = () => request(second.getHttpServer());
  const productCount = () =>
    t.db.read((m) => m.count(Product, { where: { organizationId: tenant.organizationId } }));

  it('replays on the second instance the response the first instance stored', async () => {
    const key = `two-instances-${Date.now()}`;
    const body = { name: 'Made on the first', metadata: { plan: 'pro' } };
    const before = await productCount();
    const first = await viaFirst()
      .post('/v0/products')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send(body);
    expect(first.status).toBe(201);
    const retry = await viaSecond()
      .post('/v0/products')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send(body);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['original-request-id']).toBe(first.headers['x-request-id']);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.location).toBe(first.headers.location);
    expect(await productCount()).toBe(before + 1);
    // The second instance reads the product the first one wrote, with the same ETag.
    const read = await viaSecond().get(`/v0/products/${first.body.id}`).set(tenant.auth);
    expect(read.headers.etag).toBe(first.headers.etag);
  });

  it('keeps the record across a restart: a new instance replays it', async () => {
    const key = `restart-${Date.now()}`;
    const first = await viaSecond()
      .post('/v0/products')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send({ name: 'Before the restart' })
      .expect(201);
    await second.close();
    second = await createApp(t.config);
    const retry = await viaSecond()
      .post('/v0/products')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send({ name: 'Before the restart' });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(first.text);
  });

  it('answers 422 on one instance to a key reused with another body on the other', async () => {
    const key = `two-instances-reuse-${Date.now()}`;
    await viaFirst()
      .post('/v0/products')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send({ name: 'A' })
      .expect(201);
    const res = await viaSecond()
      .post('/v0/products')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send({ name: 'B' });
    expectErrorEnvelope(res, 422, 'idempotency_error', 'IDEMPOTENCY_KEY_REUSED');
  });

  it('creates one product from ten concurrent requests with one key spread over both instances', async () => {
    const key = `two-instances-race-${Date.now()}`;
    const before = await productCount();
    // The create that runs holds the key for 200 ms before it writes.
    delayCalls(ProductsService.prototype, 'create', 200);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? viaFirst() : viaSecond())
          .post('/v0/products')
          .set(tenant.auth)
          .set('Idempotency-Key', key)
          .send({ name: 'Raced' }),
      ),
    );
    const ran = responses.filter(
      (r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined,
    );
    expect(ran).toHaveLength(1);
    for (const res of responses) {
      if (res === ran[0]) continue;
      if (res.status === 409) expectErrorEnvelope(res, 409, 'conflict', 'IDEMPOTENCY_KEY_IN_USE');
      else expect(res.body).toEqual(ran[0].body);
    }
    expect(await productCount()).toBe(before + 1);
  });

  // PostgreSQL: every PATCH waits for the row lock. SQLite: each transaction takes the file's
  // write lock before it reads (BEGIN IMMEDIATE) and the other instance waits for it (up to 5 s),
  // so no transaction reads a row another then changes. Either way every PATCH applies.
  it('never loses an update when concurrent PATCHes arrive on both instances', async () => {
    const created = await viaFirst().post('/v0/products').set(tenant.auth).send({ name: 'Shared' });
    // Each PATCH pauses between its locked read and its write.
    delayCalls(ProductsRepository.prototype, 'update', 10);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? viaFirst() : viaSecond())
          .patch(`/v0/products/${created.body.id}`)
          .set(tenant.auth)
          .send({ metadata: { [`k${i}`]: i } }),
      ),
    );
    expect(responses.map((res) => res.status)).toEqual(Array.from({ length: 10 }, () => 200));
    const applied = responses.map((_, i) => `k${i}`);
    const read = await viaSecond().get(`/v0/products/${created.body.id}`).set(tenant.auth);
    expect(Object.keys(read.body.metadata).sort()).toEqual(applied.sort());
  });
});
