/**
 * A test clock's advance at its documented scale (docs/api.md §5.9): 100 customers on one clock,
 * each with a monthly subscription, advanced through twelve monthly periods in one request.
 * Boots the real application in this process and sends requests through Fastify's inject;
 * reports the advance's wall time, then the in-process CPU per request of create customer,
 * create subscription and GET subscription (CPU_REQUESTS of each, default 300).
 *   npx ts-node --transpile-only bench/clock-advance.ts [sqlite|postgres] [customers] [months]
 */
import 'reflect-metadata';
import { createBenchDatabase, Dialect } from './lib/database';
import { createInProcessApp } from './lib/servers';

async function main(): Promise<void> {
  const [dialect = 'sqlite', customersArg = '100', monthsArg = '12'] = process.argv.slice(2);
  const customers = Number(customersArg);
  const months = Number(monthsArg);
  const database = await createBenchDatabase(dialect as Dialect);
  const app = await createInProcessApp(database.url, 'silent');
  const { ApiKeysService } = await import('../src/auth/api-keys.service');
  try {
    const keys = app.get(ApiKeysService);
    const org = await keys.createOrganization('Clock bench');
    const { apiKey } = await keys.createApiKey(org.id, { mode: 'test' });
    const fastify = app.getHttpAdapter().getInstance();
    const call = async (method: 'POST' | 'GET', url: string, payload?: object) => {
      const res = await fastify.inject({
        method,
        url,
        payload,
        headers: { authorization: `Bearer ${apiKey}` },
      });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    };
    const product = await call('POST', '/v0/products', { name: 'API' });
    const metric = await call('POST', '/v0/billableMetrics', {
      productId: product.id,
      name: 'Calls',
      unit: 'call',
      aggregation: 'COUNT',
    });
    const price = await call('POST', '/v0/prices', {
      billableMetricId: metric.id,
      model: 'standard',
      invoiceDisplayName: 'Calls',
      properties: { unitPrice: '0.01' },
    });
    const plan = await call('POST', '/v0/plans', {
      name: 'Monthly',
      productId: product.id,
      billingInterval: 'monthly',
      fixedFee: '10.00',
      prices: [price.id],
    });
    const clock = await call('POST', '/v0/testClocks', { frozenTime: '2027-01-31T10:00:00.000Z' });
    for (let i = 0; i < customers; i++) {
      const customer = await call('POST', '/v0/customers', {
        name: `Customer ${i}`,
        email: `c${i}@example.com`,
        testClockId: clock.id,
      });
      await call('POST', '/v0/subscriptions', { customerId: customer.id, planId: plan.id });
    }
    const to = new Date(Date.UTC(2027, 0 + months, 31, 10) + 3_600_000);
    const started = performance.now();
    await call('POST', `/v0/testClocks/${clock.id}/advance`, { frozenTime: to.toISOString() });
    const seconds = (performance.now() - started) / 1000;
    const page = await call('GET', `/v0/subscriptions?limit=1`);
    // In-process CPU per request (user + system, this process only: the database's own work on
    // PostgreSQL is not in it) of the three requests of the billing loop's first half.
    const perRequest = async (n: number, request: (i: number) => Promise<unknown>) => {
      const before = process.cpuUsage();
      for (let i = 0; i < n; i++) await request(i);
      const used = process.cpuUsage(before);
      return Number(((used.user + used.system) / 1000 / n).toFixed(3));
    };
    const n = Number(process.env.CPU_REQUESTS ?? 300);
    const ids: string[] = [];
    const createCustomerMs = await perRequest(n, async (i) => {
      ids.push((await call('POST', '/v0/customers', { name: `C${i}`, email: 'c@example.com' })).id);
    });
    const subscriptionIds: string[] = [];
    const createSubscriptionMs = await perRequest(n, async (i) => {
      const body = { customerId: ids[i], planId: plan.id };
      subscriptionIds.push((await call('POST', '/v0/subscriptions', body)).id);
    });
    const getSubscriptionMs = await perRequest(n, (i) =>
      call('GET', `/v0/subscriptions/${subscriptionIds[i]}`),
    );
    console.log(
      JSON.stringify({
        dialect,
        customers,
        months,
        advanceSeconds: Number(seconds.toFixed(3)),
        sampleCurrentPeriodStart: page.data[0].currentPeriodStart,
        cpuMsPerRequest: { createCustomerMs, createSubscriptionMs, getSubscriptionMs },
        node: process.version,
      }),
    );
  } finally {
    await app.close();
    await database.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
