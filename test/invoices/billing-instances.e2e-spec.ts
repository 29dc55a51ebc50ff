import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app.setup';
import { Database } from '../../src/database/database';
import { BillingRun } from '../../src/invoices/billing-run';
import { createCustomer } from '../helpers/billing-factory';
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
