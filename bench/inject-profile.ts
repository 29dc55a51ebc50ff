/**
 * The service's own cost per request, without sockets or a load generator: boots the real
 * application in this process on a seeded database and sends one scenario's requests through
 * Fastify's inject, one at a time, reporting the CPU time per request (less disturbed by other
 * work on the machine than wall time; PostgreSQL's own work is not in it). Run it under
 * `node --cpu-prof` for a profile of nothing but the request pipeline:
 *   node --cpu-prof --cpu-prof-dir=bench/results/profiles -r ts-node/register/transpile-only \
 *     bench/inject-profile.ts <scenario> [sqlite|postgres] [requests]
 * With KEYED_FIRST=1, one PATCH carrying an Idempotency-Key goes first: the state of a service
 * whose clients send keys (on Node 20 the first key left AsyncLocalStorage's promise hooks on).
 */
import 'reflect-metadata';
import { createBenchDatabase, Dialect } from './lib/database';
import { ScenarioName, scenarioRequests } from './lib/scenarios';
import {
  samplePlanIds,
  seedExternalAccounts,
  seedFreePriceTriples,
  seedPlans,
  seedTenant,
} from './lib/seed';

const ENCRYPTION_KEY = Buffer.alloc(32, 42).toString('base64');

async function main(): Promise<void> {
  const [scenario = 'getPlan', dialect = 'sqlite', countArg = '20000'] = process.argv.slice(2);
  const count = Number(countArg);
  const database = await createBenchDatabase(dialect as Dialect);
  process.env.DATABASE_URL = database.url;
  // The app reads DATABASE_URL when it loads its configuration: import it after.
  const { createApp } = await import('../src/app.setup');
  const { loadConfig } = await import('../src/config/app-config');
  const sql = await database.connect();
  const tenant = await seedTenant(sql, 'Inject');
  await seedPlans(sql, tenant, 1000);
  const accountIds = await seedExternalAccounts(
    sql,
    tenant,
    1000,
    Buffer.from(ENCRYPTION_KEY, 'base64'),
  );
  const planIds = await samplePlanIds(sql, tenant, 1000);
  const triples =
    scenario === 'createPlan' ? await seedFreePriceTriples(sql, tenant, count + 2000) : [];
  await sql.close();
  const app = await createApp(
    loadConfig({
      NODE_ENV: 'production',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      DATABASE_URL: database.url,
      ENCRYPTION_KEY,
      RATE_LIMIT_PER_SECOND: '1000000',
    }),
    // The request log is part of the cost; it goes nowhere here.
    { logDestination: { write: () => undefined } },
  );
  const fastify = app.getHttpAdapter().getInstance();
  const next = scenarioRequests({
    apiKey: tenant.apiKey,
    organizationId: tenant.organizationId,
    productId: tenant.productId,
    planIds,
    accountIds,
    triples,
  })[scenario as ScenarioName];
  const send = async () => {
    const r = next();
    const res = await fastify.inject({
      method: r.method as 'GET',
      url: r.path,
      headers: r.headers,
      payload: r.body,
    });
    if (res.statusCode >= 300) throw new Error(`${res.statusCode} ${res.body}`);
  };
  if (process.env.KEYED_FIRST === '1') {
    const keyed = await fastify.inject({
      method: 'PATCH',
      url: `/v0/externalAccounts/${accountIds[0]}`,
      headers: {
        authorization: `Bearer ${tenant.apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': 'inject-profile-keyed-first',
      },
      payload: JSON.stringify({ metadata: { keyed: 'first' } }),
    });
    if (keyed.statusCode !== 200) throw new Error(`${keyed.statusCode} ${keyed.body}`);
  }
  for (let i = 0; i < 2000; i++) await send(); // warm-up
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) await send();
  const wallUs = Number(process.hrtime.bigint() - started) / count / 1000;
  const used = process.cpuUsage(cpu);
  const cpuUs = (used.user + used.system) / count;
  process.stdout.write(
    `${scenario} on ${dialect}: ${cpuUs.toFixed(1)} µs CPU, ${wallUs.toFixed(1)} µs wall per request (inject, this process)\n`,
  );
  await app.close();
  await database.drop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
