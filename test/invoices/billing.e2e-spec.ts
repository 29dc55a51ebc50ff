import { advanceClock, createClock, createCustomer } from '../helpers/billing-factory';
import { createPlan } from '../helpers/plans-factory';
import { createTwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

/**
 * The billing run end to end (docs/api.md §5.12), driven by a test clock: a plan with a fixed
 * fee of 10 and a graduated price (the first 100 calls at 0.10 plus a flat 1, then 0.05), tax 20%
 * exclusive. 150 calls in a month: 10 + (1 + 100 × 0.10 + 50 × 0.05) = 23.50, tax 4.70, total 28.20.
 */
describe(`the billing run (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let test: TestTenant;
  let metricId: string;
  let planId: string;
  let priceId: string;
  let keys = 0;

  beforeAll(async () => {
    t = await startTestApp();
    test = (await createTwoModeTenant(t, 'Billing Co')).test;
    const product = await t.http().post('/v0/products').set(test.auth).send({ name: 'API' });
    const metric = await t
      .http()
      .post('/v0/billableMetrics')
      .set(test.auth)
      .send({
        productId: product.body.id,
        name: 'Calls',
        unit: 'call',
        aggregation: 'COUNT',
        eventType: 'api.call',
      })
      .expect(201);
    metricId = metric.body.id;
    const price = await t
      .http()
      .post('/v0/prices')
      .set(test.auth)
      .send({
        billableMetricId: metricId,
        model: 'graduated',
        invoiceDisplayName: 'API calls',
        properties: {
          tiers: [
            { upTo: '100', unitPrice: '0.10', flatPrice: '1' },
            { upTo: null, unitPrice: '0.05' },
          ],
        },
      })
      .expect(201);
    priceId = price.body.id;
    const plan = await createPlan(t, test, product.body.id, {
      name: 'Pro',
      fixedFee: '10',
      tax: { behavior: 'exclusive', rate: '20' },
      prices: [priceId],
    });
    planId = plan.id;
  });
  afterAll(() => t.close());

  /** A customer on a fresh clock at 2027-01-01, subscribed to the plan then. */
  const subscribed = async () => {
    const clock = await createClock(t, test, '2027-01-01T00:00:00.000Z');
    const customer = await createCustomer(t, test, {
      testClockId: clock.id,
      address: { line1: '1 Main St', city: 'Springfield', country: 'US' },
    });
    const sub = await t
      .http()
      .post('/v0/subscriptions')
      .set(test.auth)
      .send({ customerId: customer.id, planId })
      .expect(201);
    return { clock, customer, subscription: sub.body };
  };
  /** Sends n calls at `timestamp`, first moving the clock there when it is behind. */
  const sendCalls = async (
    clock: { id: string; frozenTime: string },
    customerId: string,
    n: number,
    timestamp: string,
  ) => {
    if (timestamp > clock.frozenTime) {
      await advanceClock(t, test, clock.id, timestamp);
      clock.frozenTime = timestamp;
    }
    const events = Array.from({ length: n }, () => ({
      idempotencyKey: `call-${++keys}`,
      type: 'api.call',
      customerId,
      timestamp,
    }));
    await t.http().post('/v0/usageEvents').set(test.auth).send({ events }).expect(202);
  };
  const invoicesOf = async (subscriptionId: string) =>
    (
      await t
        .http()
        .get(`/v0/invoices?subscriptionId=${subscriptionId}&limit=100`)
        .set(test.auth)
        .expect(200)
    ).body.data.reverse();
  const upcoming = (subscriptionId: string) =>
    t.http().get(`/v0/subscriptions/${subscriptionId}/upcomingInvoice`).set(test.auth);
  /** What must be equal between a preview and the invoice issued after it. */
  const billed = (invoice: any) => ({
    currency: invoice.currency,
    periodStart: invoice.periodStart,
    periodEnd: invoice.periodEnd,
    subtotal: invoice.subtotal,
    tax: invoice.tax,
    total: invoice.total,
    lines: invoice.lines.map(({ id: _id, ...line }: { id: string }) => line),
  });

  const advance = async (clock: { id: string; frozenTime: string }, to: string) => {
    await advanceClock(t, test, clock.id, to);
    clock.frozenTime = to;
  };

  it('previews the period, then invoices it at the end as previewed: draft, then issued after the grace', async () => {
    const { clock, customer, subscription } = await subscribed();
    await sendCalls(clock, customer.id, 150, '2027-01-10T12:00:00.000Z');
    const preview = (await upcoming(subscription.id).expect(200)).body;
    expect(preview).toMatchObject({
      id: null,
      number: null,
      status: 'upcoming',
      periodStart: '2027-01-01T00:00:00.000Z',
      periodEnd: '2027-02-01T00:00:00.000Z',
      subtotal: '23.50',
      tax: { behavior: 'exclusive', rate: '20', amount: '4.70' },
      total: '28.20',
    });
    expect(preview.lines).toEqual([
      expect.objectContaining({
        type: 'fixedFee',
        description: 'Pro',
        quantity: null,
        amount: '10.00',
      }),
      expect.objectContaining({
        type: 'usage',
        description: 'API calls',
        priceId,
        billableMetricId: metricId,
        model: 'graduated',
        quantity: '150',
        amount: '13.50',
      }),
    ]);

    // The period ends; its draft waits for the grace (1 hour).
    await advance(clock, '2027-02-01T00:30:00.000Z');
    const [draft] = await invoicesOf(subscription.id);
    expect(draft).toMatchObject({ status: 'draft', number: null });
    expect(billed(draft)).toEqual(billed(preview));

    await advance(clock, '2027-02-01T02:00:00.000Z');
    const [issued] = await invoicesOf(subscription.id);
    expect(issued).toMatchObject({
      id: draft.id,
      status: 'issued',
      number: expect.stringMatching(/^INV-\d{6}$/),
      issuedAt: '2027-02-01T01:00:00.000Z',
    });
    expect(billed(issued)).toEqual(billed(preview));
    const types = async (type: string) =>
      (await t.http().get(`/v0/events?type=${type}&limit=100`).set(test.auth)).body.data.filter(
        (e: any) => e.data.object.id === draft.id,
      ).length;
    expect(await types('invoice.created')).toBe(1);
    expect(await types('invoice.issued')).toBe(1);
  });

  it('takes usage that arrives in the grace into the draft, and late usage after the issue onto the next invoice', async () => {
    const { clock, customer, subscription } = await subscribed();
    await sendCalls(clock, customer.id, 100, '2027-01-10T12:00:00.000Z');
    await advance(clock, '2027-02-01T00:30:00.000Z');
    // In the grace: a call of January arrives late, and is on January's invoice.
    await sendCalls(clock, customer.id, 1, '2027-01-31T23:59:59.999Z');
    await advance(clock, '2027-02-01T02:00:00.000Z');
    const [january] = await invoicesOf(subscription.id);
    expect(january.status).toBe('issued');
    expect(january.lines[1]).toMatchObject({ quantity: '101', amount: '11.05' }); // 1 + 10 + 0.05

    // After the issue: 20 more calls of January go on February's invoice as lateUsage.
    await sendCalls(clock, customer.id, 20, '2027-01-20T00:00:00.000Z');
    await sendCalls(clock, customer.id, 3, '2027-02-10T00:00:00.000Z');
    const preview = (await upcoming(subscription.id).expect(200)).body;
    await advance(clock, '2027-03-01T02:00:00.000Z');
    const [, february] = await invoicesOf(subscription.id);
    expect(february.status).toBe('issued');
    expect(february.lines).toEqual([
      expect.objectContaining({ type: 'fixedFee', amount: '10.00' }),
      expect.objectContaining({ type: 'usage', quantity: '3', amount: '1.30' }),
      expect.objectContaining({
        type: 'lateUsage',
        priceId,
        quantity: '20',
        amount: '1.00',
        periodStart: '2027-01-01T00:00:00.000Z',
        periodEnd: '2027-02-01T00:00:00.000Z',
      }),
    ]);
    // January billed in all: 11.05 + 1.00 = 12.05 = 1 + 10 + 21 × 0.05, the charge for its 121 calls.
    expect(billed(february)).toEqual(billed(preview));
    expect(january.number).not.toBe(february.number);
  });

  it('shows a draft in its grace with the usage stored now, and issues it as shown', async () => {
    const { clock, customer, subscription } = await subscribed();
    await sendCalls(clock, customer.id, 100, '2027-01-10T12:00:00.000Z');
    await advance(clock, '2027-02-01T00:30:00.000Z');
    const [before] = await invoicesOf(subscription.id);
    expect(before).toMatchObject({ status: 'draft', subtotal: '21.00', total: '25.20' });
    expect(before.lines[1]).toMatchObject({ quantity: '100', amount: '11.00' });

    // In the grace: a call of January arrives; the draft shows it at once, on every read.
    await sendCalls(clock, customer.id, 1, '2027-01-31T23:59:59.999Z');
    const draft = (await t.http().get(`/v0/invoices/${before.id}`).set(test.auth).expect(200)).body;
    expect(draft).toMatchObject({
      id: before.id,
      status: 'draft',
      number: null,
      subtotal: '21.05',
      tax: { behavior: 'exclusive', rate: '20', amount: '4.21' },
      total: '25.26',
    });
    expect(draft.lines[1]).toMatchObject({
      id: before.lines[1].id,
      type: 'usage',
      quantity: '101',
      amount: '11.05',
    });
    const [listed] = await invoicesOf(subscription.id);
    expect(billed(listed)).toEqual(billed(draft));
    await t
      .http()
      .get(`/v0/invoices/${before.id}/pdf`)
      .set(test.auth)
      .expect(200)
      .expect('content-type', /application\/pdf/);

    await advance(clock, '2027-02-01T02:00:00.000Z');
    const issued = (await t.http().get(`/v0/invoices/${before.id}`).set(test.auth).expect(200))
      .body;
    expect(issued).toMatchObject({ status: 'issued', issuedAt: '2027-02-01T01:00:00.000Z' });
    expect(billed(issued)).toEqual(billed(draft));
  });

  it('invoices a partial period with a prorated fee when the subscription ends now', async () => {
    const { clock, customer, subscription } = await subscribed();
    await sendCalls(clock, customer.id, 10, '2027-01-02T00:00:00.000Z');
    await advance(clock, '2027-01-16T12:00:00.000Z');
    await t
      .http()
      .post(`/v0/subscriptions/${subscription.id}/termination`)
      .set(test.auth)
      .send({ reason: 'moving on', at: 'now' })
      .expect(200);
    const [draft] = await invoicesOf(subscription.id);
    expect(draft).toMatchObject({
      status: 'draft',
      periodStart: '2027-01-01T00:00:00.000Z',
      periodEnd: '2027-01-16T12:00:00.000Z',
    });
    // Half of January's 31 days: 5.00 of the fee; 1 + 10 × 0.10 = 2.00 of usage.
    expect(draft.lines.map((l: any) => l.amount)).toEqual(['5.00', '2.00']);
    const res = await upcoming(subscription.id);
    expectErrorEnvelope(res, 409, 'conflict', 'SUBSCRIPTION_TERMINATED');
    const done = await t
      .http()
      .post(`/v0/invoices/${draft.id}/finalize`)
      .set(test.auth)
      .expect(200);
    expect(done.body).toMatchObject({ status: 'issued', issuedAt: '2027-01-16T12:00:00.000Z' });
  });

  it('puts late usage of an ended subscription on an invoice of its own, issued after the grace, once', async () => {
    const { clock, customer, subscription } = await subscribed();
    await sendCalls(clock, customer.id, 10, '2027-01-02T00:00:00.000Z');
    await advance(clock, '2027-01-16T12:00:00.000Z');
    await t
      .http()
      .post(`/v0/subscriptions/${subscription.id}/termination`)
      .set(test.auth)
      .send({ reason: 'moving on', at: 'now' })
      .expect(200);
    await advance(clock, '2027-01-16T14:30:00.000Z');
    const [last] = await invoicesOf(subscription.id);
    expect(last).toMatchObject({ status: 'issued', issuedAt: '2027-01-16T13:00:00.000Z' });

    // 5 calls of January arrive after the last invoice was issued.
    await sendCalls(clock, customer.id, 5, '2027-01-10T00:00:00.000Z');
    await advance(clock, '2027-02-20T00:00:00.000Z');
    const invoices = await invoicesOf(subscription.id);
    expect(invoices).toHaveLength(2);
    const late = invoices[1];
    expect(late).toMatchObject({ status: 'issued', periodStart: '2027-01-16T13:00:00.000Z' });
    expect(new Date(late.issuedAt).getTime()).toBe(new Date(late.periodEnd).getTime() + 3600_000);
    // 15 calls charge 1 + 15 × 0.10 = 2.50; 2.00 were billed: 0.50, tax 0.10.
    expect(late.lines).toEqual([
      expect.objectContaining({
        type: 'lateUsage',
        priceId,
        quantity: '5',
        amount: '0.50',
        periodStart: '2027-01-01T00:00:00.000Z',
        periodEnd: '2027-01-16T12:00:00.000Z',
      }),
    ]);
    expect(late).toMatchObject({ subtotal: '0.50', total: '0.60' });
    expect(late.number).not.toBe(last.number);

    // Nothing more comes of the same usage, however far the clock goes.
    await advance(clock, '2027-06-01T00:00:00.000Z');
    expect(await invoicesOf(subscription.id)).toHaveLength(2);
  });

  it('makes no invoice after the end of a subscription without late usage', async () => {
    const { clock, customer, subscription } = await subscribed();
    await sendCalls(clock, customer.id, 10, '2027-01-02T00:00:00.000Z');
    await t
      .http()
      .post(`/v0/subscriptions/${subscription.id}/termination`)
      .set(test.auth)
      .send({ reason: 'moving on', at: 'now' })
      .expect(200);
    await advance(clock, '2027-06-01T00:00:00.000Z');
    const invoices = await invoicesOf(subscription.id);
    expect(invoices.map((i: any) => i.status)).toEqual(['issued']);
  });

  it('answers 404 to the upcoming invoice of another organization’s subscription or a bad id', async () => {
    const { subscription } = await subscribed();
    const other = await t.createTenant('Elsewhere');
    expectErrorEnvelope(await upcoming(subscription.id).set(other.auth), 404, 'not_found');
    expectErrorEnvelope(await upcoming('nope'), 404, 'not_found');
  });
});

/** Real time: no clock; the lease poller issues each draft once its grace has ended. */
describe(`the billing run in real time (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let live: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    live = await t.createTenant('Realtime Co');
  });
  afterAll(() => t.close());

  /** Reads until `done` holds, for background work (at most `tries` reads, 200 ms apart). */
  const eventually = async <T>(read: () => Promise<T>, done: (v: T) => boolean, tries = 150) => {
    let value = await read();
    for (let i = 0; i < tries && !done(value); i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      value = await read();
    }
    return value;
  };

  it('invoices the periods of a backdated subscription that already ended, and issues them after their grace, numbered without a gap', async () => {
    const product = await t.http().post('/v0/products').set(live.auth).send({ name: 'API' });
    const plan = await createPlan(t, live, product.body.id, {
      name: 'Weekly',
      billingInterval: 'weekly',
      fixedFee: '7',
    });
    const customer = await createCustomer(t, live);
    const startedAt = new Date(Date.now() - 15 * 86_400_000).toISOString();
    const sub = await t
      .http()
      .post('/v0/subscriptions')
      .set(live.auth)
      .send({ customerId: customer.id, planId: plan.id, startedAt })
      .expect(201);
    const list = () =>
      t
        .http()
        .get(`/v0/invoices?subscriptionId=${sub.body.id}`)
        .set(live.auth)
        .then((r) => r.body.data as any[]);
    const invoices = await eventually(
      list,
      (data) => data.length === 2 && data.every((i) => i.status === 'issued'),
    );
    expect(invoices.map((i) => i.status)).toEqual(['issued', 'issued']);
    const [second, first] = invoices;
    expect(first.periodStart).toBe(startedAt);
    expect(first.periodEnd).toBe(second.periodStart);
    // Consecutive, no gap; two drafts due at the same poll may be issued in either order.
    expect([first.number, second.number].sort()).toEqual(['INV-000001', 'INV-000002']);
    expect(first.lines).toEqual([
      expect.objectContaining({ type: 'fixedFee', description: 'Weekly', amount: '7.00' }),
    ]);
    expect(first.total).toBe('7.00');
  });
});
