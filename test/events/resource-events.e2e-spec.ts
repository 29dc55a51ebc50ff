import { randomUUID } from 'node:crypto';
import { createTwoModeTenant, TwoModeTenant } from '../helpers/modes';
import { ResourceKind, RESOURCES, createVia } from '../helpers/resources';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';

/**
 * Every write of every resource records its event (docs/events.md, docs/api.md §5.6): in the
 * key's mode, with the object exactly as GET shows it, the request and the actor; updates with
 * `previousAttributes`; nothing for a write that changes nothing or for an idempotent replay.
 */
describe(`the events of every resource's writes (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acme: TwoModeTenant;

  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTwoModeTenant(t, 'Acme');
  });
  afterAll(() => t.close());

  /** The tenant's events of one type, newest first. */
  async function eventsOf(tenant: TestTenant, type: string): Promise<any[]> {
    const res = await t.http().get(`/v0/events?type=${type}&limit=100`).set(tenant.auth);
    expect(res.status).toBe(200);
    return res.body.data;
  }

  /** The tenant's event about `id` of one type (exactly one). */
  async function eventAbout(tenant: TestTenant, type: string, id: string): Promise<any> {
    const events = (await eventsOf(tenant, type)).filter((e) => e.data.object.id === id);
    expect({ type, id, events: events.length }).toEqual({ type, id, events: 1 });
    return events[0];
  }

  describe.each(RESOURCES.map((r) => [r.name, r] as [string, ResourceKind]))('%s', (_, kind) => {
    describe.each([
      ['live', true],
      ['test', false],
    ] as [string, boolean][])('with a %s key', (mode, livemode) => {
      const tenant = () => (livemode ? acme.live : acme.test);
      const otherMode = () => (livemode ? acme.test : acme.live);

      it(`records ${kind.event}.created with the object GET shows, the request and the actor, once`, async () => {
        const body = await kind.createBody(t, tenant());
        const key = randomUUID();
        const requestId = `req-${randomUUID()}`;
        const created = await t
          .http()
          .post(kind.path)
          .set({ ...tenant().auth, 'Idempotency-Key': key, 'X-Request-Id': requestId })
          .send(body)
          .expect(201);
        expect(created.body.livemode).toBe(livemode);
        const shown = await t.http().get(`${kind.path}/${created.body.id}`).set(tenant().auth);
        expect(shown.status).toBe(200);

        const event = await eventAbout(tenant(), `${kind.event}.created`, created.body.id);
        expect(event).toMatchObject({
          type: `${kind.event}.created`,
          livemode,
          data: { object: shown.body, previousAttributes: null },
          request: { id: requestId, idempotencyKey: key },
          actor: { type: 'apiKey', id: tenant().apiKeyId },
        });
        // Exactly as GET shows it, to the order of its keys (PostgreSQL's jsonb reordered them).
        const one = await t.http().get(`/v0/events/${event.id}`).set(tenant().auth).expect(200);
        expect(JSON.stringify(one.body.data.object)).toBe(shown.text);
        expect(JSON.stringify(event.data.object)).toBe(shown.text);
        if (typeof body.accountNumber === 'string') {
          expect(JSON.stringify(event)).not.toContain(body.accountNumber);
        }

        // A replay of the key records nothing more; the other mode never sees the event.
        await t
          .http()
          .post(kind.path)
          .set({ ...tenant().auth, 'Idempotency-Key': key })
          .send(body)
          .expect(201)
          .expect('Idempotent-Replayed', 'true');
        await eventAbout(tenant(), `${kind.event}.created`, created.body.id);
        await t.http().get(`/v0/events/${event.id}`).set(otherMode().auth).expect(404);
      });

      it(`records ${kind.event}.updated with the old values, and nothing for a PATCH that changes nothing`, async () => {
        const created = await createVia(t, tenant(), kind.path, await kind.createBody(t, tenant()));
        const patched = await t
          .http()
          .patch(`${kind.path}/${created.id}`)
          .set(tenant().auth)
          .send(kind.change)
          .expect(200);
        const event = await eventAbout(tenant(), `${kind.event}.updated`, created.id);
        const previous = Object.fromEntries(Object.keys(kind.change).map((k) => [k, created[k]]));
        expect(event.data).toEqual({ object: patched.body, previousAttributes: previous });
        expect(event.livemode).toBe(livemode);

        await t
          .http()
          .patch(`${kind.path}/${created.id}`)
          .set(tenant().auth)
          .send(kind.change)
          .expect(200);
        await t.http().patch(`${kind.path}/${created.id}`).set(tenant().auth).send({}).expect(200);
        await eventAbout(tenant(), `${kind.event}.updated`, created.id);
      });

      if (kind.deletable) {
        it(`records ${kind.event}.deleted once`, async () => {
          const created = await createVia(
            t,
            tenant(),
            kind.path,
            await kind.createBody(t, tenant()),
          );
          const deleted = await t.http().delete(`${kind.path}/${created.id}`).set(tenant().auth);
          expect([200, 204]).toContain(deleted.status); // a price answers 204, no body
          const event = await eventAbout(tenant(), `${kind.event}.deleted`, created.id);
          expect(event.livemode).toBe(livemode);
          expect(event.data.previousAttributes).toBeNull();
          // Deleting again changes nothing and records nothing (or answers 404).
          await t.http().delete(`${kind.path}/${created.id}`).set(tenant().auth);
          await eventAbout(tenant(), `${kind.event}.deleted`, created.id);
        });
      }
    });
  });

  describe('plans and their prices', () => {
    async function price(tenant: TestTenant, productId: string): Promise<any> {
      const metric = await createVia(t, tenant, '/v0/billableMetrics', {
        productId,
        name: 'Calls',
        unit: 'call',
        aggregation: 'COUNT',
      });
      return createVia(t, tenant, '/v0/prices', {
        billableMetricId: metric.id,
        model: 'standard',
        invoiceDisplayName: 'Calls',
        properties: { unitPrice: '0.25' },
      });
    }

    it('records price.updated for each price a plan takes or frees, and price.deleted with the plan', async () => {
      const tenant = acme.test;
      const product = await createVia(t, tenant, '/v0/products', { name: 'Metered' });
      const [first, second, third] = [
        await price(tenant, product.id),
        await price(tenant, product.id),
        await price(tenant, product.id),
      ];
      const plan = await createVia(t, tenant, '/v0/plans', {
        name: 'Pro',
        productId: product.id,
        billingInterval: 'monthly',
        prices: [first.id, second.id],
      });
      for (const p of [first, second]) {
        const taken = await eventAbout(tenant, 'price.updated', p.id);
        expect(taken.data.object.planId).toBe(plan.id);
        expect(taken.data.previousAttributes).toEqual({ planId: null });
      }

      // Reordering moves no price to another plan; freeing `first` and taking `third` do.
      await t
        .http()
        .patch(`/v0/plans/${plan.id}`)
        .set(tenant.auth)
        .send({ prices: [third.id, second.id] })
        .expect(200);
      const updates = await eventsOf(tenant, 'price.updated');
      const about = (id: string) => updates.filter((e) => e.data.object.id === id);
      expect(about(first.id).map((e) => e.data.previousAttributes)).toEqual([
        { planId: plan.id },
        { planId: null },
      ]);
      expect(about(first.id)[0].data.object.planId).toBeNull();
      expect(about(second.id)).toHaveLength(1);
      expect(about(third.id).map((e) => e.data.previousAttributes)).toEqual([{ planId: null }]);
      const planUpdated = await eventAbout(tenant, 'plan.updated', plan.id);
      expect(planUpdated.data.previousAttributes.prices.map((p: any) => p.id)).toEqual([
        first.id,
        second.id,
      ]);

      await t.http().delete(`/v0/plans/${plan.id}`).set(tenant.auth).expect(200);
      const deleted = await eventAbout(tenant, 'plan.deleted', plan.id);
      expect(deleted.data.object.deletedAt).not.toBeNull();
      for (const p of [third, second]) {
        const priceDeleted = await eventAbout(tenant, 'price.deleted', p.id);
        expect(priceDeleted.data.object.deletedAt).not.toBeNull();
      }
      expect((await eventsOf(acme.live, 'price.*')).map((e) => e.data.object.id)).not.toContain(
        first.id,
      );
    });

    it('records nothing when a plan write fails', async () => {
      const tenant = acme.live;
      const product = await createVia(t, tenant, '/v0/products', { name: 'Refused' });
      const before = (await eventsOf(tenant, 'plan.*')).length;
      await t
        .http()
        .post('/v0/plans')
        .set(tenant.auth)
        .send({
          name: 'Pro',
          productId: product.id,
          billingInterval: 'monthly',
          prices: ['price_00000000000000000000000000'],
        })
        .expect(400);
      expect(await eventsOf(tenant, 'plan.*')).toHaveLength(before);
    });
  });
});
