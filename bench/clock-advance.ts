/**
 * A test clock's advance at its documented scale (docs/api.md §5.9): 100 customers on one clock,
 * each with a monthly subscription, advanced through twelve monthly periods in one request.
 * Boots the real application in this process and sends requests through Fastify's inject;
 * reports the advance's wall time and how many events it recorded.
 *   npx ts-node --transpile-only bench/clock-advance.ts [sqlite|postgres] [customers] [months]
 */
import 'reflect-metadata';
import { createBenchDatabase, Dialect } from './lib/database';

const ENCRYPTION_KEY = Buffer.alloc(32, 42).toString('base64');

async function main(): Promise<void> {
  const [dialect = 'sqlite', customersArg = '100', monthsArg = '12'] = process.argv.slice(2);
  const customers = Number(customersArg);
  const months = Number(monthsArg);
  const database = await createBenchDatabase(dialect as Dialect);
  process.env.DATABASE_URL = database.url;
  const { createApp } = await import('../src/app.setup');
  const { loadConfig } = await import('../src/config/app-config');
  const { ApiKeysService } = await import('../src/auth/api-keys.service');
  const app = await createApp(
    loadConfig({
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      ENCRYPTION_KEY,
      RATE_LIMIT_PER_SECOND: '1000000',
      EVENTS_RECORDING: process.env.EVENTS_RECORDING ?? 'on',
    }),
    { logDestination: { write: () => undefined } },
  );
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
    console.log(
      JSON.stringify({
        dialect,
        customers,
        months,
        advanceSeconds: Number(seconds.toFixed(3)),
        sampleCurrentPeriodStart: page.data[0].currentPeriodStart,
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
