import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app.setup';
import { Database } from '../../src/database/database';
import { BillingRun } from '../../src/invoices/billing-run';
import { createCustomer, createPricedPlan } from '../helpers/billing-factory';
import { createPlan } from '../helpers/plans-factory';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { eventually } from '../helpers/webhook-receiver';

/**
 * Two complete instances of the service on one database, both running the billing run: each
 * period is invoiced once (the unique index on subscription and period start), each draft issued
 * once, and the numbers run from INV-000001 with no gap and no repeat.
 */
describe(`two billing instances on one ${TEST_DIALECT} database`, () => {
  let t: TestApp;
  let second: NestFastifyApplication;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_DISPATCHER: 'off' });
    second = await createApp(t.config);
  });
  afterAll(async () => {
    await second.close();
    await t.close();
  });

  it('invoices each period once and numbers the invoices without a gap or a repeat', async () => {
    const tenant = await t.createTenant('Shared');
    const product = await t.http().post('/v0/products').set(tenant.auth).send({ name: 'API' });
    const plan = await createPlan(t, tenant, product.body.id, {
      billingInterval: 'weekly',
      fixedFee: '1',
    });
    const startedAt = new Date(Date.now() - 15 * 86_400_000).toISOString();
    const subscriptions: { id: string; customerId: string }[] = [];
    for (let i = 0; i < 12; i++) {
      const customer = await createCustomer(t, tenant, { email: `c${i}@example.com` });
      const sub = await t
        .http()
        .post('/v0/subscriptions')
        .set(tenant.auth)
        .send({ customerId: customer.id, planId: plan.id, startedAt })
        .expect(201);
      subscriptions.push({ id: sub.body.id, customerId: customer.id });
    }
    // Both instances also close the same periods again, at once: the second finds the first's.
    const closeAgain = (app: NestFastifyApplication) =>
      Promise.all(
        subscriptions.map((s) =>
          app
            .get(Database)
            .transaction((m) =>
              app.get(BillingRun).periodClosed(m, {
                tenant: { organizationId: tenant.organizationId, livemode: true },
                subscriptionId: s.id,
                customerId: s.customerId,
                planId: plan.id,
                period: {
                  start: new Date(startedAt),
                  end: new Date(Date.parse(startedAt) + 7 * 86_400_000),
                },
                billedEnd: new Date(Date.parse(startedAt) + 7 * 86_400_000),
              }),
            )
            .catch((err: Error) => err),
        ),
      );
    await Promise.all([closeAgain(t.app), closeAgain(second)]);

    const invoices = await eventually(
      async () =>
        (await t.http().get('/v0/invoices?limit=100').set(tenant.auth).expect(200)).body.data as {
          subscriptionId: string;
          periodStart: string;
          status: string;
          number: string | null;
        }[],
      (data) => data.length >= 24 && data.every((i) => i.status === 'issued'),
      60_000,
    );
    expect(invoices).toHaveLength(24);
    const periods = new Set(invoices.map((i) => `${i.subscriptionId} ${i.periodStart}`));
    expect(periods.size).toBe(24);
    const numbers = invoices.map((i) => i.number).sort();
    expect(numbers).toEqual(
      Array.from({ length: 24 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`),
    );
    const issued = await t
      .http()
      .get('/v0/events?type=invoice.issued&limit=100')
      .set(tenant.auth)
      .expect(200);
    expect(issued.body.data).toHaveLength(24);
  });
});

/**
 * Late usage of an ended subscription in real time, with two instances polling (a grace of one
 * second): one invoice of its own with the lateUsage lines, issued after the grace, never twice.
 */
describe(`late usage after the end, two instances on one ${TEST_DIALECT} database`, () => {
  let t: TestApp;
  let second: NestFastifyApplication;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_DISPATCHER: 'off', INVOICE_GRACE_SECONDS: '1' });
    second = await createApp(t.config);
  });
  afterAll(async () => {
    await second.close();
    await t.close();
  });

  it('invoices late usage once, on an invoice of only lateUsage lines, and nothing without it', async () => {
    const tenant = await t.createTenant('Late');
    const product = await t.http().post('/v0/products').set(tenant.auth).send({ name: 'API' });
    const metric = await t
      .http()
      .post('/v0/billableMetrics')
      .set(tenant.auth)
      .send({
        productId: product.body.id,
        name: 'Calls',
        unit: 'call',
        aggregation: 'COUNT',
        eventType: 'api.call',
      })
      .expect(201);
    const { plan } = await createPricedPlan(
      t,
      tenant,
      true,
      { productId: product.body.id, billingInterval: 'weekly' },
      [metric.body.id],
    );
    const startedAt = new Date(Date.now() - 10 * 86_400_000).toISOString();
    const ended = async () => {
      const customer = await createCustomer(t, tenant);
      const sub = await t
        .http()
        .post('/v0/subscriptions')
        .set(tenant.auth)
        .send({ customerId: customer.id, planId: plan.id, startedAt })
        .expect(201);
      await t
        .http()
        .post(`/v0/subscriptions/${sub.body.id}/termination`)
        .set(tenant.auth)
        .send({ reason: 'done', at: 'now' })
        .expect(200);
      return { customerId: customer.id as string, subscriptionId: sub.body.id as string };
    };
    const list = (subscriptionId: string) =>
      t
        .http()
        .get(`/v0/invoices?subscriptionId=${subscriptionId}`)
        .set(tenant.auth)
        .expect(200)
        .then((r) => (r.body.data as any[]).reverse());
    const issued = (n: number) => (data: any[]) =>
      data.length === n && data.every((i) => i.status === 'issued');

    const late = await ended();
    const quiet = await ended();
    await eventually(() => list(late.subscriptionId), issued(2), 30_000);
    const events = Array.from({ length: 3 }, (_, i) => ({
      idempotencyKey: `late-${i}`,
      type: 'api.call',
      customerId: late.customerId,
      timestamp: new Date(Date.parse(startedAt) + 86_400_000).toISOString(),
    }));
    await t.http().post('/v0/usageEvents').set(tenant.auth).send({ events }).expect(202);

    const invoices = await eventually(() => list(late.subscriptionId), issued(3), 30_000);
    const own = invoices[2];
    expect(own.lines).toEqual([
      expect.objectContaining({
        type: 'lateUsage',
        quantity: '3',
        amount: '0.75',
        periodStart: startedAt,
      }),
    ]);
    expect(Date.parse(own.issuedAt)).toBeGreaterThanOrEqual(Date.parse(own.periodEnd) + 1000);
    // More polls of both instances: still one.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await list(late.subscriptionId)).toHaveLength(3);
    expect((await list(quiet.subscriptionId)).map((i) => i.status)).toEqual(['issued', 'issued']);
  });
});
