import { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { createApp } from '../../src/app.setup';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import { Widget, WidgetsModule } from '../helpers/widgets.module';

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
    t = await startTestApp({}, { extraModules: [WidgetsModule] });
    second = await createApp(t.config, { extraModules: [WidgetsModule] });
    tenant = await t.createTenant();
  });
  afterAll(async () => {
    await second.close();
    await t.close();
  });

  const viaFirst = () => t.http();
  const viaSecond = () => request(second.getHttpServer());
  const widgetCount = () =>
    t.db.read((m) => m.count(Widget, { where: { organizationId: tenant.organizationId } }));

  it('replays on the second instance the response the first instance stored', async () => {
    const key = `two-instances-${Date.now()}`;
    const body = { name: 'Made on the first', metadata: { plan: 'pro' } };
    const before = await widgetCount();
    const first = await viaFirst()
      .post('/v0/widgets')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send(body);
    expect(first.status).toBe(201);
    const retry = await viaSecond()
      .post('/v0/widgets')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send(body);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['original-request-id']).toBe(first.headers['x-request-id']);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.location).toBe(first.headers.location);
    expect(await widgetCount()).toBe(before + 1);
    // The second instance reads the widget the first one wrote, with the same ETag.
    const read = await viaSecond().get(`/v0/widgets/${first.body.id}`).set(tenant.auth);
    expect(read.headers.etag).toBe(first.headers.etag);
  });

  it('keeps the record across a restart: a new instance replays it', async () => {
    const key = `restart-${Date.now()}`;
    const first = await viaSecond()
      .post('/v0/widgets')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send({ name: 'Before the restart' })
      .expect(201);
    await second.close();
    second = await createApp(t.config, { extraModules: [WidgetsModule] });
    const retry = await viaSecond()
      .post('/v0/widgets')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send({ name: 'Before the restart' });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(first.text);
  });

  it('answers 422 on one instance to a key reused with another body on the other', async () => {
    const key = `two-instances-reuse-${Date.now()}`;
    await viaFirst()
      .post('/v0/widgets')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send({ name: 'A' })
      .expect(201);
    const res = await viaSecond()
      .post('/v0/widgets')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send({ name: 'B' });
    expectErrorEnvelope(res, 422, 'idempotency_error', 'IDEMPOTENCY_KEY_REUSED');
  });

  it('creates one widget from ten concurrent requests with one key spread over both instances', async () => {
    const key = `two-instances-race-${Date.now()}`;
    const before = await widgetCount();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? viaFirst() : viaSecond())
          .post('/v0/widgets')
          .set(tenant.auth)
          .set('Idempotency-Key', key)
          .send({ name: 'Raced', delayMs: 200 }),
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
    expect(await widgetCount()).toBe(before + 1);
  });

  // PostgreSQL: every PATCH waits for the row lock. SQLite: each transaction takes the file's
  // write lock before it reads (BEGIN IMMEDIATE) and the other instance waits for it (up to 5 s),
  // so no transaction reads a row another then changes. Either way every PATCH applies.
  it('never loses an update when concurrent PATCHes arrive on both instances', async () => {
    const created = await viaFirst().post('/v0/widgets').set(tenant.auth).send({ name: 'Shared' });
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? viaFirst() : viaSecond())
          .patch(`/v0/widgets/${created.body.id}`)
          .set(tenant.auth)
          .send({ metadata: { [`k${i}`]: i }, delayMs: 10 }),
      ),
    );
    expect(responses.map((res) => res.status)).toEqual(Array.from({ length: 10 }, () => 200));
    const applied = responses.map((_, i) => `k${i}`);
    const read = await viaSecond().get(`/v0/widgets/${created.body.id}`).set(tenant.auth);
    expect(Object.keys(read.body.metadata).sort()).toEqual(applied.sort());
  });
});
