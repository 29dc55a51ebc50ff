/**
 * The upcoming invoice at scale (issue 44, docs/api.md §5.12): `GET
 * /v0/subscriptions/{id}/upcomingInvoice` for a customer with 100,000 usage events in the
 * current period, with 10 thousand and then with 10 million other events stored (bulk SQL, as
 * bench/usage.ts seeds the meter's figure). Target: within 1.5× of each other.
 *
 *   npx ts-node --transpile-only bench/upcoming-invoice.ts [--db sqlite,postgres] [--others 10000000]
 */
import { parseArgs } from 'node:util';
import { Dialect, createBenchDatabase } from './lib/database';
import { Tenant, seedTenant } from './lib/seed';
import { startTarget } from './lib/servers';
import { loadAverage, median } from './lib/stats';
import { bulkEvents, othersStored, seedCustomer, seedSumMetric } from './lib/usage-rows';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite,postgres' },
    others: { type: 'string', default: '10000000' },
  },
});
const DAY = 86_400_000;

/** A JSON request to the service with the tenant's key; throws on an unexpected status. */
async function call(url: string, tenant: Tenant, path: string, body?: object): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function upcoming(dialect: Dialect): Promise<void> {
  const database = await createBenchDatabase(dialect);
  const sql = await database.connect();
  try {
    const tenant = await seedTenant(sql, 'Upcoming bench');
    const customer = await seedCustomer(sql, tenant);
    const metric = await seedSumMetric(sql, tenant, '$.v');
    // A monthly subscription started 10 days ago: its current period holds the 100,000 events.
    const startedAt = Math.floor((Date.now() - 10 * DAY) / 1000) * 1000;
    await bulkEvents(sql, tenant, metric, 100_000, customer, startedAt, 9 * DAY, 'uev_mine');
    let subscription = '';
    const from = startedAt - 60 * DAY; // the others: over the four months around the period
    const totals = [10_000, Number(args.others)];
    for await (const { total, seeded } of othersStored(sql, tenant, metric, from, totals)) {
      const target = await startTarget({
        databaseUrl: database.url,
        name: 'upcoming-invoice-service',
        env: { LOG_LEVEL: 'warn' },
      });
      try {
        if (!subscription) {
          const price = await call(target.url, tenant, '/v0/prices', {
            billableMetricId: metric,
            model: 'standard',
            invoiceDisplayName: 'Tokens',
            properties: { unitPrice: '0.001' },
          });
          const plan = await call(target.url, tenant, '/v0/plans', {
            name: 'Bench',
            productId: tenant.productId,
            billingInterval: 'monthly',
            fixedFee: '10',
            prices: [price.id],
          });
          const sub = await call(target.url, tenant, '/v0/subscriptions', {
            customerId: customer,
            planId: plan.id,
            startedAt: new Date(startedAt).toISOString(),
          });
          subscription = sub.id;
        }
        const times: number[] = [];
        let invoice: any;
        for (let i = 0; i < 6; i++) {
          const t = performance.now();
          invoice = await call(
            target.url,
            tenant,
            `/v0/subscriptions/${subscription}/upcomingInvoice`,
          );
          if (i > 0) times.push(performance.now() - t);
        }
        console.log(
          `| ${dialect} | ${total.toLocaleString('en')} | ${median(times).toFixed(0)} ms | ` +
            `${invoice.lines[1].quantity} → ${invoice.total} ${invoice.currency} | ${seeded} s | ${loadAverage()} |`,
        );
      } finally {
        await target.stop();
      }
    }
  } finally {
    await sql.close();
    await database.drop();
  }
}

async function main(): Promise<void> {
  console.log(
    '| Database | Other events stored | upcomingInvoice (median of 5) | quantity → total | Seeding | Load |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const dialect of args.db.split(',') as Dialect[]) await upcoming(dialect);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
