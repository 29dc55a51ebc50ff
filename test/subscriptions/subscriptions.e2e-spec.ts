import {
  advanceClock,
  createClock,
  createCustomer,
  createPricedPlan,
} from '../helpers/billing-factory';
import { createTwoModeTenant } from '../helpers/modes';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import { TEST_DIALECT } from '../helpers/test-database';

const SUBSCRIPTION_KEYS = [
  'billingAnchor',
  'createdAt',
  'currency',
  'currentPeriodEnd',
  'currentPeriodStart',
  'customerId',
  'endingAt',
  'id',
  'livemode',
  'metadata',
  'object',
  'planId',
  'startedAt',
  'status',
  'terminatedAt',
  'terminationReason',
  'updatedAt',
].sort();

const T0 = '2027-01-31T10:00:00.000Z';

describe(`subscriptions (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let live: TestTenant;
  let test: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    const org = await createTwoModeTenant(t, 'Acme');
    live = org.live;
    test = org.test;
    other = await t.createTenant('Other');
  });
  afterAll(() => t.close());

  const subscribe = (tenant: TestTenant, body: object) =>
    t.http().post('/v0/subscriptions').set(tenant.auth).send(body);
  const get = (tenant: TestTenant, path: string) => t.http().get(path).set(tenant.auth);
  const patch = (tenant: TestTenant, id: string, body: object) =>
    t.http().patch(`/v0/subscriptions/${id}`).set(tenant.auth).send(body);
  const terminate = (tenant: TestTenant, id: string, body: object) =>
    t.http().post(`/v0/subscriptions/${id}/termination`).set(tenant.auth).send(body);
  const eventsOf = async (tenant: TestTenant, id: string) => {
    const res = await get(tenant, '/v0/events?type=subscription.*&limit=100').expect(200);
    return res.body.data
      .filter((e: any) => e.data.object.id === id)
      .reverse()
      .map((e: any) => e.type);
  };

  /** A test customer on a clock at T0 and a monthly plan of one fresh metric. */
  async function onClock(frozenTime = T0, planBody: Record<string, unknown> = {}) {
    const clock = await createClock(t, test, frozenTime);
    const customer = await createCustomer(t, test, { testClockId: clock.id });
    const { plan, metricIds, productId } = await createPricedPlan(t, test, false, planBody);
    return { clock, customer, plan, metricIds, productId };
  }

  async function subscribed(tenant: TestTenant, body: object) {
    const res = await subscribe(tenant, body);
    expect(res.status).toBe(201);
    return res.body;
  }

  describe('POST /v0/subscriptions', () => {
    it("starts now on the customer's clock, with the first monthly period", async () => {
      const { customer, plan } = await onClock();
      const res = await subscribe(test, { customerId: customer.id, planId: plan.id }).expect(201);
      expect(Object.keys(res.body).sort()).toEqual(SUBSCRIPTION_KEYS);
      expect(res.body).toMatchObject({
        object: 'subscription',
        livemode: false,
        customerId: customer.id,
        planId: plan.id,
        currency: 'USD',
        status: 'active',
        startedAt: T0,
        billingAnchor: T0,
        currentPeriodStart: T0,
        currentPeriodEnd: '2027-02-28T10:00:00.000Z',
        endingAt: null,
        terminatedAt: null,
        terminationReason: null,
        metadata: {},
      });
      expect(res.body.id).toMatch(/^sub_[0-9A-Za-z]{16,40}$/);
      expect(res.headers.location).toBe(`/v0/subscriptions/${res.body.id}`);
      expect((await get(test, `/v0/subscriptions/${res.body.id}`).expect(200)).body).toEqual(
        res.body,
      );
      expect(await eventsOf(test, res.body.id)).toEqual(['subscription.created']);
    });

    it('starts now in real time with a live key', async () => {
      const customer = await createCustomer(t, live);
      const { plan } = await createPricedPlan(t, live, true);
      const before = Date.now();
      const sub = await subscribed(live, { customerId: customer.id, planId: plan.id });
      expect(sub.status).toBe('active');
      expect(Date.parse(sub.startedAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(sub.currentPeriodStart).toBe(sub.startedAt);
    });

    it('is pending until a later start, then starts when the clock passes it', async () => {
      const { clock, customer, plan } = await onClock();
      const sub = await subscribed(test, {
        customerId: customer.id,
        planId: plan.id,
        startedAt: '2027-03-15T00:00:00.000Z',
      });
      expect(sub).toMatchObject({
        status: 'pending',
        currentPeriodStart: null,
        currentPeriodEnd: null,
        billingAnchor: '2027-03-15T00:00:00.000Z',
      });
      await advanceClock(t, test, clock.id, '2027-03-14T23:59:59.999Z');
      expect((await get(test, `/v0/subscriptions/${sub.id}`)).body.status).toBe('pending');
      await advanceClock(t, test, clock.id, '2027-03-15T00:00:00.000Z');
      const after = (await get(test, `/v0/subscriptions/${sub.id}`)).body;
      expect(after).toMatchObject({
        status: 'active',
        currentPeriodStart: '2027-03-15T00:00:00.000Z',
        currentPeriodEnd: '2027-04-15T00:00:00.000Z',
      });
      expect(await eventsOf(test, sub.id)).toEqual([
        'subscription.created',
        'subscription.started',
      ]);
    });

    it('backdates at most 90 days, active at once in the period that holds now', async () => {
      const { customer, plan } = await onClock();
      const sub = await subscribed(test, {
        customerId: customer.id,
        planId: plan.id,
        startedAt: '2026-11-02T10:00:00.000Z', // exactly 90 days before T0
      });
      expect(sub).toMatchObject({
        status: 'active',
        billingAnchor: '2026-11-02T10:00:00.000Z',
        currentPeriodStart: '2027-01-02T10:00:00.000Z',
        currentPeriodEnd: '2027-02-02T10:00:00.000Z',
      });
      const { customer: c2, plan: p2 } = await onClock();
      const res = await subscribe(test, {
        customerId: c2.id,
        planId: p2.id,
        startedAt: '2026-11-02T09:59:59.999Z',
      });
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors[0].field).toBe('startedAt');
    });

    it.each([
      ['no customerId', { planId: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0PLN' }, 'customerId'],
      [
        'a malformed planId',
        { customerId: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0CUS', planId: 'x' },
        'planId',
      ],
      ['a startedAt with an offset', { startedAt: '2027-01-01T00:00:00+02:00' }, 'startedAt'],
      ['an unknown field', { status: 'active' }, 'status'],
    ])('rejects %s with a 400 naming the field', async (_what, body, field) => {
      const res = await subscribe(test, {
        customerId: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0CUS',
        planId: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0PLN',
        ...body,
      });
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors.map((e: any) => e.field)).toContain(field);
    });

    it("answers 400 CUSTOMER_NOT_FOUND / PLAN_NOT_FOUND for another tenant's, the other mode's and deleted ones", async () => {
      const liveCustomer = await createCustomer(t, live);
      const { plan: livePlan } = await createPricedPlan(t, live, true);
      const { customer, plan } = await onClock();
      const otherCustomer = await createCustomer(t, other);
      const cases: [object, string][] = [
        [{ customerId: liveCustomer.id, planId: plan.id }, 'CUSTOMER_NOT_FOUND'],
        [{ customerId: otherCustomer.id, planId: plan.id }, 'CUSTOMER_NOT_FOUND'],
        [{ customerId: customer.id, planId: livePlan.id }, 'PLAN_NOT_FOUND'],
      ];
      for (const [body, code] of cases) {
        expectErrorEnvelope(await subscribe(test, body), 400, 'validation_error', code);
      }
      const gone = await createCustomer(t, test);
      await t.http().delete(`/v0/customers/${gone.id}`).set(test.auth).expect(200);
      expectErrorEnvelope(
        await subscribe(test, { customerId: gone.id, planId: plan.id }),
        400,
        'validation_error',
        'CUSTOMER_NOT_FOUND',
      );
      const { plan: deleted } = await createPricedPlan(t, test, false);
      await t.http().delete(`/v0/plans/${deleted.id}`).set(test.auth).expect(200);
      expectErrorEnvelope(
        await subscribe(test, { customerId: customer.id, planId: deleted.id }),
        400,
        'validation_error',
        'PLAN_NOT_FOUND',
      );
    });

    it('holds one subscription per billable metric per customer (409 METRIC_ALREADY_SUBSCRIBED)', async () => {
      const { customer, plan, metricIds, productId } = await onClock();
      const first = await subscribed(test, { customerId: customer.id, planId: plan.id });
      const { plan: same } = await createPricedPlan(t, test, false, { productId }, metricIds);
      expectErrorEnvelope(
        await subscribe(test, { customerId: customer.id, planId: same.id }),
        409,
        'conflict',
        'METRIC_ALREADY_SUBSCRIBED',
      );
      // Another metric is fine; so is the same one once the first subscription ended.
      const { plan: otherMetric } = await createPricedPlan(t, test, false);
      await subscribed(test, { customerId: customer.id, planId: otherMetric.id });
      await terminate(test, first.id, { reason: 'moving', at: 'now' }).expect(200);
      await subscribed(test, { customerId: customer.id, planId: same.id });
    });
  });

  describe('billing periods on a test clock', () => {
    it('rolls monthly periods from the anchor, each with subscription.updated', async () => {
      const { clock, customer, plan } = await onClock();
      const sub = await subscribed(test, { customerId: customer.id, planId: plan.id });
      await advanceClock(t, test, clock.id, '2027-05-01T00:00:00.000Z');
      const now = (await get(test, `/v0/subscriptions/${sub.id}`)).body;
      expect(now).toMatchObject({
        currentPeriodStart: '2027-04-30T10:00:00.000Z',
        currentPeriodEnd: '2027-05-31T10:00:00.000Z',
        billingAnchor: T0,
      });
      expect(await eventsOf(test, sub.id)).toEqual([
        'subscription.created',
        'subscription.updated',
        'subscription.updated',
        'subscription.updated',
      ]);
    });

    it('rejects an advance that is not later, or more than two years later', async () => {
      const clock = await createClock(t, test, T0);
      for (const frozenTime of [T0, '2027-01-01T00:00:00.000Z', '2029-01-31T10:00:00.001Z']) {
        const res = await t
          .http()
          .post(`/v0/testClocks/${clock.id}/advance`)
          .set(test.auth)
          .send({ frozenTime });
        expectErrorEnvelope(res, 400, 'validation_error');
      }
      const ok = await advanceClock(t, test, clock.id, '2029-01-31T10:00:00.000Z');
      expect(ok.frozenTime).toBe('2029-01-31T10:00:00.000Z');
    });
  });

  describe('termination', () => {
    it('at periodEnd schedules endingAt, then ends there when the clock passes it', async () => {
      const { clock, customer, plan } = await onClock();
      const sub = await subscribed(test, { customerId: customer.id, planId: plan.id });
      const res = await terminate(test, sub.id, { reason: 'Too expensive' }).expect(200);
      expect(res.body).toMatchObject({
        status: 'active',
        endingAt: '2027-02-28T10:00:00.000Z',
        terminationReason: 'Too expensive',
      });
      await advanceClock(t, test, clock.id, '2027-03-10T00:00:00.000Z');
      const ended = (await get(test, `/v0/subscriptions/${sub.id}`)).body;
      expect(ended).toMatchObject({
        status: 'terminated',
        terminatedAt: '2027-02-28T10:00:00.000Z',
        endingAt: '2027-02-28T10:00:00.000Z',
        currentPeriodStart: null,
        currentPeriodEnd: null,
      });
      expect(await eventsOf(test, sub.id)).toEqual([
        'subscription.created',
        'subscription.updated',
        'subscription.terminated',
      ]);
    });

    it('now ends at once on clock time; a terminated subscription answers 409 to PATCH and termination', async () => {
      const { clock, customer, plan } = await onClock();
      const sub = await subscribed(test, { customerId: customer.id, planId: plan.id });
      await advanceClock(t, test, clock.id, '2027-02-10T00:00:00.000Z');
      const res = await terminate(test, sub.id, { reason: 'Fraud', at: 'now' }).expect(200);
      expect(res.body).toMatchObject({
        status: 'terminated',
        terminatedAt: '2027-02-10T00:00:00.000Z',
        terminationReason: 'Fraud',
      });
      expectErrorEnvelope(
        await terminate(test, sub.id, { reason: 'again', at: 'now' }),
        409,
        'conflict',
        'SUBSCRIPTION_TERMINATED',
      );
      expectErrorEnvelope(
        await patch(test, sub.id, { metadata: { a: 1 } }),
        409,
        'conflict',
        'SUBSCRIPTION_TERMINATED',
      );
    });

    it('ends a pending subscription at once, whatever at says', async () => {
      const { customer, plan } = await onClock();
      const sub = await subscribed(test, {
        customerId: customer.id,
        planId: plan.id,
        startedAt: '2027-06-01T00:00:00.000Z',
      });
      const res = await terminate(test, sub.id, { reason: 'Changed mind' }).expect(200);
      expect(res.body).toMatchObject({ status: 'terminated', terminatedAt: T0 });
    });

    it.each([
      ['no reason', { at: 'now' }],
      ['an empty reason', { reason: '', at: 'now' }],
      ['an unknown at', { reason: 'x', at: 'tomorrow' }],
    ])('rejects %s with a 400', async (_what, body) => {
      const { customer, plan } = await onClock();
      const sub = await subscribed(test, { customerId: customer.id, planId: plan.id });
      expectErrorEnvelope(await terminate(test, sub.id, body), 400, 'validation_error');
    });
  });

  describe('PATCH /v0/subscriptions/{id}', () => {
    it('changes the plan now: a new series anchored at the change', async () => {
      const { clock, customer, plan } = await onClock();
      const sub = await subscribed(test, { customerId: customer.id, planId: plan.id });
      await advanceClock(t, test, clock.id, '2027-02-10T12:00:00.000Z');
      const { plan: weekly } = await createPricedPlan(t, test, false, {
        billingInterval: 'weekly',
      });
      const res = await patch(test, sub.id, { planId: weekly.id }).expect(200);
      expect(res.body).toMatchObject({
        planId: weekly.id,
        billingAnchor: '2027-02-10T12:00:00.000Z',
        currentPeriodStart: '2027-02-10T12:00:00.000Z',
        currentPeriodEnd: '2027-02-17T12:00:00.000Z',
        startedAt: T0,
      });
      // The old plan is free again: its terms change; the new one is frozen.
      await t
        .http()
        .patch(`/v0/plans/${plan.id}`)
        .set(test.auth)
        .send({ billingInterval: 'yearly' })
        .expect(200);
      expectErrorEnvelope(
        await t
          .http()
          .patch(`/v0/plans/${weekly.id}`)
          .set(test.auth)
          .send({ billingInterval: 'yearly' }),
        409,
        'conflict',
        'PLAN_IN_USE',
      );
      // The same planId changes nothing.
      const same = await patch(test, sub.id, { planId: weekly.id }).expect(200);
      expect(same.body.updatedAt).toBe(res.body.updatedAt);
    });

    it('refuses a plan of another currency (400 CURRENCY_MISMATCH)', async () => {
      const { customer, plan } = await onClock();
      const sub = await subscribed(test, { customerId: customer.id, planId: plan.id });
      const { plan: euro } = await createPricedPlan(t, test, false, { currency: 'EUR' });
      expectErrorEnvelope(
        await patch(test, sub.id, { planId: euro.id }),
        400,
        'validation_error',
        'CURRENCY_MISMATCH',
      );
    });

    it('merges metadata and refuses fields that never change', async () => {
      const { customer, plan } = await onClock();
      const sub = await subscribed(test, {
        customerId: customer.id,
        planId: plan.id,
        metadata: { a: 1, b: 2 },
      });
      const res = await patch(test, sub.id, { metadata: { a: null, c: 'x' } }).expect(200);
      expect(res.body.metadata).toEqual({ b: 2, c: 'x' });
      for (const body of [{ customerId: customer.id }, { startedAt: T0 }, { status: 'active' }]) {
        expectErrorEnvelope(await patch(test, sub.id, body), 400, 'validation_error');
      }
    });
  });

  describe('a plan in use is frozen (PLAN_IN_USE)', () => {
    it('refuses billing terms, prices and DELETE while a subscription is active, and allows them after', async () => {
      const { customer, plan, metricIds } = await onClock(T0, { fixedFee: '49.00' });
      expect(plan.fixedFee).toBe('49.00');
      const sub = await subscribed(test, { customerId: customer.id, planId: plan.id });
      const planPath = `/v0/plans/${plan.id}`;
      for (const body of [
        { billingInterval: 'weekly' },
        { tax: { rate: '5' } },
        { fixedFee: '50.00' },
        { fixedFee: null },
        { prices: [] },
      ]) {
        expectErrorEnvelope(
          await t.http().patch(planPath).set(test.auth).send(body),
          409,
          'conflict',
          'PLAN_IN_USE',
        );
      }
      const renamed = await t
        .http()
        .patch(planPath)
        .set(test.auth)
        .send({ name: 'Renamed', fixedFee: '49.00' });
      expect(renamed.status).toBe(200);
      expectErrorEnvelope(
        await t.http().delete(planPath).set(test.auth),
        409,
        'conflict',
        'PLAN_IN_USE',
      );
      const priceId = plan.prices[0].id;
      expectErrorEnvelope(
        await t
          .http()
          .patch(`/v0/prices/${priceId}`)
          .set(test.auth)
          .send({ properties: { unitPrice: '0.30' } }),
        409,
        'conflict',
        'PLAN_IN_USE',
      );
      await t
        .http()
        .patch(`/v0/prices/${priceId}`)
        .set(test.auth)
        .send({ invoiceDisplayName: 'Calls' })
        .expect(200);
      expectErrorEnvelope(
        await t.http().delete(`/v0/prices/${priceId}`).set(test.auth),
        409,
        'conflict',
        'PLAN_IN_USE',
      );
      expect(metricIds).toHaveLength(1);
      // A customer with an active subscription is not deleted either.
      expectErrorEnvelope(
        await t.http().delete(`/v0/customers/${customer.id}`).set(test.auth),
        409,
        'conflict',
        'CUSTOMER_HAS_SUBSCRIPTIONS',
      );
      await terminate(test, sub.id, { reason: 'done', at: 'now' }).expect(200);
      await t.http().patch(planPath).set(test.auth).send({ fixedFee: null }).expect(200);
      await t.http().delete(`/v0/customers/${customer.id}`).set(test.auth).expect(200);
      await t.http().delete(planPath).set(test.auth).expect(200);
    });

    it('rejects a fixedFee that is not a decimal string', async () => {
      const { plan } = await onClock();
      for (const fixedFee of [49, '-1', '1e3', '01']) {
        expectErrorEnvelope(
          await t.http().patch(`/v0/plans/${plan.id}`).set(test.auth).send({ fixedFee }),
          400,
          'validation_error',
        );
      }
    });
  });

  describe('reading', () => {
    it('lists by customerId, planId and status within the tenant; other tenants get 404', async () => {
      const { customer, plan } = await onClock();
      const sub = await subscribed(test, { customerId: customer.id, planId: plan.id });
      const byCustomer = await get(test, `/v0/subscriptions?customerId=${customer.id}`).expect(200);
      expect(byCustomer.body.data.map((s: any) => s.id)).toEqual([sub.id]);
      const byPlan = await get(test, `/v0/subscriptions?planId=${plan.id}&status=active`).expect(
        200,
      );
      expect(byPlan.body.pagination.total).toBe(1);
      const none = await get(test, `/v0/subscriptions?planId=${plan.id}&status=pending`).expect(
        200,
      );
      expect(none.body.pagination.total).toBe(0);
      expect(
        (await get(live, `/v0/subscriptions?customerId=${customer.id}`)).body.pagination.total,
      ).toBe(0);
      expectErrorEnvelope(await get(live, `/v0/subscriptions/${sub.id}`), 404, 'not_found');
      expectErrorEnvelope(await get(other, `/v0/subscriptions/${sub.id}`), 404, 'not_found');
      expectErrorEnvelope(await patch(other, sub.id, { metadata: {} }), 404, 'not_found');
      expectErrorEnvelope(await terminate(other, sub.id, { reason: 'x' }), 404, 'not_found');
      expectErrorEnvelope(
        await get(test, '/v0/subscriptions?status=gone'),
        400,
        'validation_error',
      );
    });
  });
});
