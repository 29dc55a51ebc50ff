/**
 * The service's own cost per request, without sockets or a load generator: boots the real
 * application in this process on a seeded database and sends one scenario's requests through
 * Fastify's inject, one at a time, reporting the CPU time per request (less disturbed by other
 * work on the machine than wall time; PostgreSQL's own work is not in it). Run it under
 * `node --cpu-prof` for a profile of nothing but the request pipeline:
 *   node --cpu-prof --cpu-prof-dir=bench/results/profiles -r ts-node/register/transpile-only \
 *     bench/inject-profile.ts <scenario> [sqlite|postgres] [requests]
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
import { SERVICE_ENV, createInProcessApp } from './lib/servers';

async function main(): Promise<void> {
  const [scenario = 'getPlan', dialect = 'sqlite', countArg = '20000'] = process.argv.slice(2);
  const count = Number(countArg);
  const database = await createBenchDatabase(dialect as Dialect);
  const sql = await database.connect();
  const tenant = await seedTenant(sql, 'Inject');
  await seedPlans(sql, tenant, 1000);
  const key = Buffer.from(SERVICE_ENV.ENCRYPTION_KEY, 'base64');
  const accountIds = await seedExternalAccounts(sql, tenant, 1000, key);
  const planIds = await samplePlanIds(sql, tenant, 1000);
  const triples =
    scenario === 'createPlan' ? await seedFreePriceTriples(sql, tenant, count + 2000) : [];
  await sql.close();
  const app = await createInProcessApp(database.url, process.env.LOG_LEVEL ?? 'info');
  const fastify = app.getHttpAdapter().getInstance();
  const next = scenarioRequests({ ...tenant, planIds, accountIds, triples })[
    scenario as ScenarioName
  ];
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
