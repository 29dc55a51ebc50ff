import { RouteTable } from '../../src/platform/route-table';
import { captureLogs } from '../helpers/log-capture';
import { ResourceKind, RESOURCES, createVia } from '../helpers/resources';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

/**
 * The promises every resource keeps (docs/api.md §1, §2 and §6), checked once for all of them:
 * another organization's resource and a malformed id answer 404, a stale If-Match 412, a current
 * If-None-Match 304, a PATCH that changes nothing keeps the ETag, and a create answers with a
 * Location header that a replay of its Idempotency-Key repeats.
 */
describe.each(RESOURCES.map((r) => [r.name, r] as [string, ResourceKind]))(
  'every resource: %s',
  (_, kind) => {
    let t: TestApp;
    let tenant: TestTenant;
    let other: TestTenant;

    const logs = captureLogs();

    beforeAll(async () => {
      t = await startTestApp({ LOG_LEVEL: 'error' }, { logDestination: logs.destination });
      tenant = await t.createTenant('Owner');
      other = await t.createTenant('Other');
    });
    afterAll(() => t.close());

    const create = async () => createVia(t, tenant, kind.path, await kind.createBody(t, tenant));

    it('answers 404 to another organization, exactly as to a missing id', async () => {
      const { id } = await create();
      const get = await t.http().get(`${kind.path}/${id}`).set(other.auth);
      expectErrorEnvelope(get, 404, 'not_found');
      const patch = await t.http().patch(`${kind.path}/${id}`).set(other.auth).send(kind.change);
      expectErrorEnvelope(patch, 404, 'not_found');
      if (kind.deletable) {
        const del = await t.http().delete(`${kind.path}/${id}`).set(other.auth);
        expectErrorEnvelope(del, 404, 'not_found');
      }
      const missing = await t
        .http()
        .get(`${kind.path}/${id.slice(0, -4)}ZZZZ`)
        .set(other.auth);
      expect({ ...get.body, requestId: null }).toEqual({
        ...missing.body,
        message: get.body.message,
        requestId: null,
      });
      // The owner's resource is untouched.
      await t.http().get(`${kind.path}/${id}`).set(tenant.auth).expect(200);
    });

    it('stores the answer of each write in the write transaction itself (caller.commit)', async () => {
      let n = 0;
      const key = () => `commit-${kind.name}-${Date.now()}-${n++}`;
      const created = await t
        .http()
        .post(kind.path)
        .set(tenant.auth)
        .set('Idempotency-Key', key())
        .send(await kind.createBody(t, tenant))
        .expect(201);
      const path = `${kind.path}/${created.body.id}`;
      await t
        .http()
        .patch(path)
        .set(tenant.auth)
        .set('Idempotency-Key', key())
        .send(kind.change)
        .expect(200);
      if (kind.deletable) {
        const del = await t.http().delete(path).set(tenant.auth).set('Idempotency-Key', key());
        expect(del.status).toBeLessThan(300);
      }
      // IdempotencyService.onSend logs a success whose answer no write transaction stored.
      expect(logs.lines.filter((l) => l.includes('not stored with its write'))).toEqual([]);
    });

    it('answers 404, never a 500, to a malformed id', async () => {
      for (const id of ['nope', 'prod_', "x'; DROP TABLE plans; --", '%E2%82%AC']) {
        const res = await t.http().get(`${kind.path}/${id}`).set(tenant.auth);
        expectErrorEnvelope(res, 404, 'not_found');
        const patch = await t.http().patch(`${kind.path}/${id}`).set(tenant.auth).send({});
        expectErrorEnvelope(patch, 404, 'not_found');
      }
    });

    it('answers 412 to a PATCH with a stale If-Match and changes nothing', async () => {
      const { id } = await create();
      const first = await t.http().get(`${kind.path}/${id}`).set(tenant.auth).expect(200);
      const stale = first.headers.etag;
      await t.http().patch(`${kind.path}/${id}`).set(tenant.auth).send(kind.change).expect(200);
      const after = await t.http().get(`${kind.path}/${id}`).set(tenant.auth).expect(200);
      const res = await t
        .http()
        .patch(`${kind.path}/${id}`)
        .set(tenant.auth)
        .set('If-Match', stale)
        .send({});
      expectErrorEnvelope(res, 412, 'precondition_failed');
      const now = await t.http().get(`${kind.path}/${id}`).set(tenant.auth).expect(200);
      expect(now.body).toEqual(after.body);
      await t
        .http()
        .patch(`${kind.path}/${id}`)
        .set(tenant.auth)
        .set('If-Match', now.headers.etag)
        .send({})
        .expect(200);
    });

    it('answers 412 to an empty If-Match (no tag matches), on PATCH and DELETE', async () => {
      const { id } = await create();
      const before = await t.http().get(`${kind.path}/${id}`).set(tenant.auth).expect(200);
      for (const empty of ['', ' ', ' , ']) {
        const patch = await t
          .http()
          .patch(`${kind.path}/${id}`)
          .set(tenant.auth)
          .set('If-Match', empty)
          .send(kind.change);
        expectErrorEnvelope(patch, 412, 'precondition_failed');
        if (kind.deletable) {
          const del = await t
            .http()
            .delete(`${kind.path}/${id}`)
            .set(tenant.auth)
            .set('If-Match', empty);
          expectErrorEnvelope(del, 412, 'precondition_failed');
        }
      }
      const after = await t.http().get(`${kind.path}/${id}`).set(tenant.auth).expect(200);
      expect(after.body).toEqual(before.body);
    });

    it('answers 304 without a body to If-None-Match with the current ETag', async () => {
      const { id } = await create();
      const first = await t.http().get(`${kind.path}/${id}`).set(tenant.auth).expect(200);
      const res = await t
        .http()
        .get(`${kind.path}/${id}`)
        .set(tenant.auth)
        .set('If-None-Match', first.headers.etag);
      expect(res.status).toBe(304);
      expect(res.text ?? '').toBe('');
      expect(res.headers.etag).toBe(first.headers.etag);
    });

    it('keeps the ETag and updatedAt through a PATCH that changes nothing', async () => {
      const created = await create();
      const first = await t.http().get(`${kind.path}/${created.id}`).set(tenant.auth).expect(200);
      const res = await t
        .http()
        .patch(`${kind.path}/${created.id}`)
        .set(tenant.auth)
        .send({})
        .expect(200);
      expect(res.headers.etag).toBe(first.headers.etag);
      expect(res.body.updatedAt).toBe(first.body.updatedAt);
      const changed = await t
        .http()
        .patch(`${kind.path}/${created.id}`)
        .set(tenant.auth)
        .send(kind.change)
        .expect(200);
      expect(changed.headers.etag).not.toBe(first.headers.etag);
    });

    it('sends Location on create, and again on the replay of its Idempotency-Key', async () => {
      const body = await kind.createBody(t, tenant);
      const key = `location-${kind.path}`;
      const first = await t
        .http()
        .post(kind.path)
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .send(body)
        .expect(201);
      expect(first.headers.location).toBe(`${kind.path}/${first.body.id}`);
      await t.http().get(first.headers.location).set(tenant.auth).expect(200);
      const replay = await t
        .http()
        .post(kind.path)
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .send(body)
        .expect(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers.location).toBe(first.headers.location);
      expect(replay.body).toEqual(first.body);
    });

    it('refuses the fields the service sets, saying what sets them, and writes nothing', async () => {
      const created = await create();
      const total = async () =>
        (await t.http().get(kind.path).set(tenant.auth).expect(200)).body.pagination.total;
      const before = await total();
      const sent: Record<string, unknown> = {
        id: created.id,
        object: created.object,
        livemode: !created.livemode,
        createdAt: created.createdAt,
        updatedAt: created.updatedAt,
        deletedAt: null,
      };
      for (const [field, value] of Object.entries(sent)) {
        const post = await t
          .http()
          .post(kind.path)
          .set(tenant.auth)
          .send({ ...(await kind.createBody(t, tenant)), [field]: value });
        expectErrorEnvelope(post, 400, 'validation_error', 'FIELD_NOT_ALLOWED');
        expect(post.body.errors).toEqual([
          { field, code: 'field_not_allowed', message: expect.stringMatching(/service|API key/) },
        ]);
        const patch = await t
          .http()
          .patch(`${kind.path}/${created.id}`)
          .set(tenant.auth)
          .send({ ...kind.change, [field]: value });
        expectErrorEnvelope(patch, 400, 'validation_error', 'FIELD_NOT_ALLOWED');
      }
      expect(await total()).toBe(before);
      const now = await t.http().get(`${kind.path}/${created.id}`).set(tenant.auth).expect(200);
      // As created (a webhook endpoint's secret shows only in the create's answer).
      const { secret: _shownOnce, ...shown } = created;
      expect(now.body).toEqual(shown);
      // Any other field the resource does not have is still unknown.
      const unknown = await t
        .http()
        .post(kind.path)
        .set(tenant.auth)
        .send({ ...(await kind.createBody(t, tenant)), toString: 'x', colour: 'red' });
      expectErrorEnvelope(unknown, 400, 'validation_error');
      expect(unknown.body.errors.map((e: { code: string }) => e.code)).not.toContain(
        'field_not_allowed',
      );
    });
  },
);

describe('the resources these promises are checked for', () => {
  it('include every collection a client creates in (each POST /v0/<collection>)', async () => {
    const t = await startTestApp();
    try {
      const collections = t.app
        .get(RouteTable)
        .list()
        .filter((r) => r.method === 'POST' && /^\/v0\/[A-Za-z]+$/.test(r.url))
        // Test clocks live in test mode only and never change but by an advance: their own
        // suite (test/customers) checks their promises.
        .filter((r) => r.url !== '/v0/testClocks')
        .map((r) => r.url)
        .sort();
      expect(collections.length).toBeGreaterThan(0);
      expect(collections).toEqual(RESOURCES.map((r) => r.path).sort());
    } finally {
      await t.close();
    }
  });
});
