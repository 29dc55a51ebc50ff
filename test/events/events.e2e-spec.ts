import { encodeTime } from 'ulid';
import { In } from 'typeorm';
import { EventsService } from '../../src/events/events.service';
import { EventType } from '../../src/events/event-types';
import { createTwoModeTenant, TwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

describe(`events (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acme: TwoModeTenant;
  let other: TwoModeTenant;

  /** Records one event as a write would: inside a transaction, through EventsService.record. */
  function record(
    tenant: { organizationId: string },
    livemode: boolean,
    type: EventType,
    object: Record<string, unknown>,
  ) {
    const events = t.app.get(EventsService);
    return t.db.transaction(
      async (m) =>
        await events.record(m, {
          principal: { organizationId: tenant.organizationId, livemode },
          type,
          object,
          previousAttributes: type.endsWith('.updated') ? { name: 'Old' } : null,
          request: { id: 'req_test', idempotencyKey: 'idem-1' },
          actor: { type: 'apiKey', id: 'key_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' },
        }),
    );
  }

  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTwoModeTenant(t, 'Acme');
    other = await createTwoModeTenant(t, 'Other');
  });
  afterAll(() => t.close());

  it('shows a recorded event with its data, request and actor', async () => {
    const event = await record(acme, true, 'plan.updated', { id: 'plan_1', name: 'New' });
    const res = await t.http().get(`/v0/events/${event.id}`).set(acme.live.auth).expect(200);
    expect(res.body).toEqual({
      id: event.id,
      object: 'event',
      type: 'plan.updated',
      livemode: true,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: { object: { id: 'plan_1', name: 'New' }, previousAttributes: { name: 'Old' } },
      request: { id: 'req_test', idempotencyKey: 'idem-1' },
      actor: { type: 'apiKey', id: 'key_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' },
    });
    expect(event.id).toMatch(/^evt_[0-9A-Za-z]{16,40}$/);
  });

  it('never records a secret, even when a caller passes one', async () => {
    const event = await record(acme, true, 'webhookEndpoint.created', {
      id: 'we_1',
      secret: 'whsec_c2VjcmV0',
    });
    const res = await t.http().get(`/v0/events/${event.id}`).set(acme.live.auth).expect(200);
    expect(res.body.data.object).toEqual({ id: 'we_1' });
    expect(JSON.stringify(res.body)).not.toContain('whsec_');
  });

  it('records nothing when the write rolls back', async () => {
    const events = t.app.get(EventsService);
    let id = '';
    await expect(
      t.db.transaction(async (m) => {
        id = (
          await events.record(m, {
            principal: { organizationId: acme.organizationId, livemode: true },
            type: 'product.created',
            object: { id: 'prod_x' },
            request: null,
            actor: { type: 'system', id: null },
          })
        ).id;
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    await t.http().get(`/v0/events/${id}`).set(acme.live.auth).expect(404);
  });

  it('answers 404 for another organization, the other mode, a missing or a malformed id', async () => {
    const event = await record(acme, false, 'product.created', { id: 'prod_1' });
    await t.http().get(`/v0/events/${event.id}`).set(acme.test.auth).expect(200);
    for (const auth of [acme.live.auth, other.test.auth, other.live.auth]) {
      const res = await t.http().get(`/v0/events/${event.id}`).set(auth);
      expectErrorEnvelope(res, 404, 'not_found', 'RESOURCE_NOT_FOUND');
    }
    const missing = await t
      .http()
      .get('/v0/events/evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC')
      .set(acme.test.auth);
    expectErrorEnvelope(missing, 404, 'not_found');
    const malformed = await t.http().get('/v0/events/not-an-id').set(acme.test.auth);
    expectErrorEnvelope(malformed, 404, 'not_found');
  });

  describe('the list', () => {
    let tenant: TwoModeTenant;
    const ids: string[] = [];

    beforeAll(async () => {
      tenant = await createTwoModeTenant(t, 'Lister');
      const types: EventType[] = [
        'product.created',
        'plan.created',
        'plan.updated',
        'price.created',
      ];
      for (let i = 0; i < 12; i++) {
        ids.push((await record(tenant, true, types[i % 4], { id: `obj_${i}` })).id);
      }
      // The other mode and another organization, which the list must never show.
      await record(tenant, false, 'plan.created', { id: 'test_mode' });
      await record(other, true, 'plan.created', { id: 'other_org' });
    });

    it('pages newest first by cursor, each page after the last id of the one before', async () => {
      const seen: string[] = [];
      let startingAfter: string | undefined;
      let pages = 0;
      for (;;) {
        const query = new URLSearchParams({ limit: '5' });
        if (startingAfter) query.set('startingAfter', startingAfter);
        const res = await t
          .http()
          .get(`/v0/events?${query.toString()}`)
          .set(tenant.live.auth)
          .expect(200);
        expect(Object.keys(res.body.pagination).sort()).toEqual(['hasMore', 'limit']);
        pages++;
        seen.push(...res.body.data.map((e: { id: string }) => e.id));
        if (!res.body.pagination.hasMore) break;
        startingAfter = res.body.data[res.body.data.length - 1].id;
      }
      expect(pages).toBe(3);
      expect(seen).toEqual([...ids].reverse());
    });

    it('pages back toward the newest with endingBefore, each page newest first', async () => {
      const pages: string[][] = [];
      let endingBefore = ids[0];
      for (;;) {
        const res = await t
          .http()
          .get(`/v0/events?limit=5&endingBefore=${endingBefore}`)
          .set(tenant.live.auth)
          .expect(200);
        const page = res.body.data.map((e: { id: string }) => e.id);
        pages.push(page);
        if (!res.body.pagination.hasMore) break;
        endingBefore = page[0];
      }
      // Nearest the cursor first: 1-5, then 6-10, then 11, each newest first.
      expect(pages).toEqual([
        ids.slice(1, 6).reverse(),
        ids.slice(6, 11).reverse(),
        ids.slice(11).reverse(),
      ]);
    });

    it('answers an empty last page before the newest event, and no page of the other mode', async () => {
      const newest = await t
        .http()
        .get(`/v0/events?endingBefore=${ids[11]}`)
        .set(tenant.live.auth)
        .expect(200);
      // The test-mode event and the other organization's, recorded after it, are not newer ones.
      expect(newest.body).toEqual({ data: [], pagination: { limit: 10, hasMore: false } });
      const middle = await t
        .http()
        .get(`/v0/events?limit=3&type=plan.updated&endingBefore=${ids[2]}`)
        .set(tenant.live.auth)
        .expect(200);
      // plan.updated are ids 2, 6 and 10: newer than 2 are 6 and 10.
      expect(middle.body.data.map((e: { id: string }) => e.id)).toEqual([ids[10], ids[6]]);
      expect(middle.body.pagination.hasMore).toBe(false);
    });

    it('refuses startingAfter with endingBefore, beside any other problem', async () => {
      const res = await t
        .http()
        .get(`/v0/events?limit=0&startingAfter=${ids[3]}&endingBefore=${ids[8]}`)
        .set(tenant.live.auth);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: 'limit', code: 'out_of_range' }),
          expect.objectContaining({
            field: 'endingBefore',
            code: 'field_not_allowed',
            message: expect.stringContaining('startingAfter'),
          }),
        ]),
      );
      expect(res.body.errors).toHaveLength(2);
    });

    it('shows only the caller mode', async () => {
      const res = await t.http().get('/v0/events?limit=100').set(tenant.test.auth).expect(200);
      expect(res.body.data.map((e: any) => e.data.object.id)).toEqual(['test_mode']);
      expect(res.body.data[0].livemode).toBe(false);
    });

    it('filters by an exact type and by a prefix', async () => {
      const exact = await t
        .http()
        .get('/v0/events?type=plan.updated&limit=100')
        .set(tenant.live.auth)
        .expect(200);
      expect(exact.body.data.map((e: any) => e.type)).toEqual(Array(3).fill('plan.updated'));
      const prefix = await t
        .http()
        .get('/v0/events?type=plan.*&limit=2')
        .set(tenant.live.auth)
        .expect(200);
      expect(prefix.body.data.map((e: any) => e.type)).toEqual(['plan.updated', 'plan.created']);
      expect(prefix.body.pagination).toEqual({ limit: 2, hasMore: true });
      const next = await t
        .http()
        .get(`/v0/events?type=plan.*&limit=100&startingAfter=${prefix.body.data[1].id}`)
        .set(tenant.live.auth)
        .expect(200);
      expect(next.body.data).toHaveLength(4);
      expect(next.body.pagination.hasMore).toBe(false);
    });

    it('pages a prefix across its types by cursor: every event once, newest first', async () => {
      const lister = await createTwoModeTenant(t, 'Interleaved');
      const sequence: EventType[] = [
        'plan.created',
        'plan.updated',
        'product.created',
        'plan.updated',
        'plan.deleted',
        'price.updated',
        'plan.updated',
        'plan.created',
        'plan.deleted',
        'plan.deleted',
        'product.updated',
        'plan.updated',
        'plan.created',
        'plan.updated',
        'plan.deleted',
      ];
      const recorded: { id: string; type: string; createdAt: Date }[] = [];
      for (const [i, type] of sequence.entries()) {
        recorded.push(await record(lister, true, type, { id: `obj_${i}` }));
      }
      // Events of several types at one instant: their order is their ids' (ULIDs, increasing).
      const tied = recorded.slice(3, 9).map((e) => e.id);
      await t.db.transaction((m) =>
        m.update('events', { id: In(tied) }, { createdAt: recorded[3].createdAt }),
      );
      const expected = recorded
        .filter((e) => e.type.startsWith('plan.'))
        .map((e) => e.id)
        .reverse();
      for (const limit of [1, 2, 3, 4]) {
        /** One page of `plan.*` on one side of a cursor: between 1 and `limit` events. */
        const page = async (cursor: Record<string, string>) => {
          const query = new URLSearchParams({ type: 'plan.*', limit: String(limit), ...cursor });
          const res = await t
            .http()
            .get(`/v0/events?${query.toString()}`)
            .set(lister.live.auth)
            .expect(200);
          const ids: string[] = res.body.data.map((e: { id: string }) => e.id);
          expect(ids.length).toBeGreaterThan(0);
          expect(ids.length).toBeLessThanOrEqual(limit);
          return { ids, hasMore: res.body.pagination.hasMore as boolean };
        };
        const seen: string[] = [];
        for (let cursor: Record<string, string> = {}; ;) {
          const { ids, hasMore } = await page(cursor);
          seen.push(...ids);
          if (!hasMore) break;
          cursor = { startingAfter: ids[ids.length - 1] };
        }
        expect(seen).toEqual(expected);
        // And back from the oldest with endingBefore: the same events, pages in reverse.
        const back: string[][] = [];
        for (let endingBefore = expected[expected.length - 1]; ;) {
          const { ids, hasMore } = await page({ endingBefore });
          back.unshift(ids);
          if (!hasMore) break;
          endingBefore = ids[0];
        }
        expect([...back.flat(), expected[expected.length - 1]]).toEqual(expected);
      }
    });

    it.each([
      ['type=plan', 'type'],
      ['type=plan.exploded', 'type'],
      ['type=order.*', 'type'],
      ['type=*', 'type'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['offset=10', 'offset'],
      ['startingAfter=plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC', 'startingAfter'],
      ['endingBefore=plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC', 'endingBefore'],
      ['endingBefore=', 'endingBefore'],
    ])('refuses ?%s with a 400 naming %s', async (query, field) => {
      const res = await t.http().get(`/v0/events?${query.toString()}`).set(tenant.live.auth);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it('refuses a cursor of another organization or mode as unknown', async () => {
      const foreign = await record(other, true, 'plan.created', { id: 'x' });
      const ownTest = await record(tenant, false, 'plan.created', { id: 'y' });
      for (const cursor of [foreign.id, ownTest.id]) {
        for (const param of ['startingAfter', 'endingBefore']) {
          const res = await t.http().get(`/v0/events?${param}=${cursor}`).set(tenant.live.auth);
          expectErrorEnvelope(res, 400, 'validation_error', 'UNKNOWN_CURSOR');
          expect(res.body.errors).toEqual([expect.objectContaining({ field: param })]);
        }
      }
    });
  });

  it('the retention sweep deletes events older than EVENT_RETENTION_DAYS only', async () => {
    const tenant = await createTwoModeTenant(t, 'Sweep');
    // An event's id is a ULID that starts with its creation time: a backdated event gets both.
    const backdate = async (id: string, days: number): Promise<string> => {
      const createdAt = new Date(Date.now() - days * 86_400_000);
      const backdated = `evt_${encodeTime(createdAt.getTime(), 10)}${id.slice(-16)}`;
      await t.db.transaction((m) => m.update('events', { id }, { id: backdated, createdAt }));
      return backdated;
    };
    const old = await backdate((await record(tenant, true, 'product.created', { id: 'o' })).id, 31);
    const kept = await backdate(
      (await record(tenant, true, 'product.created', { id: 'k' })).id,
      29,
    );
    const recent = await record(tenant, true, 'product.created', { id: 'recent' });
    expect(await t.app.get(EventsService).sweep()).toBe(1);
    await t.http().get(`/v0/events/${old}`).set(tenant.live.auth).expect(404);
    await t.http().get(`/v0/events/${kept}`).set(tenant.live.auth).expect(200);
    await t.http().get(`/v0/events/${recent.id}`).set(tenant.live.auth).expect(200);
  });
});
