/**
 * Prints the SQL the service sends for one request of each benchmark scenario, so the baseline
 * servers (bench/baseline) can be checked against it: `npx ts-node --transpile-only
 * bench/trace-sql.ts [sqlite|postgres]`. Boots the real application in this process.
 */
import 'reflect-metadata';
import { Logger as TypeOrmLogger } from 'typeorm';
import { createBenchDatabase, Dialect } from './lib/database';
import { seedExternalAccounts, seedFreePriceTriples, seedPlans, seedTenant } from './lib/seed';
import { SCENARIOS, scenarioRequests } from './lib/scenarios';

const ENCRYPTION_KEY = Buffer.alloc(32, 9).toString('base64');

async function main(): Promise<void> {
  const dialect = (process.argv[2] ?? 'sqlite') as Dialect;
  const database = await createBenchDatabase(dialect);
  process.env.DATABASE_URL = database.url;
  // The app reads DATABASE_URL when it loads its configuration: import it after.
  const { createApp } = await import('../src/app.setup');
  const { loadConfig } = await import('../src/config/app-config');
  const { DataSource } = await import('typeorm');
  const sql = await database.connect();
  const tenant = await seedTenant(sql, 'Trace');
  await seedPlans(sql, tenant, 20);
  const triples = await seedFreePriceTriples(sql, tenant, 2);
  const accounts = await seedExternalAccounts(
    sql,
    tenant,
    2,
    Buffer.from(ENCRYPTION_KEY, 'base64'),
  );
  const planIds = (
    await sql.all<{ id: string }>('SELECT id FROM plans ORDER BY id LIMIT 2', [])
  ).map((r) => r.id);
  await sql.close();

  const app = await createApp(
    loadConfig({
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      ENCRYPTION_KEY,
      RATE_LIMIT_PER_SECOND: '1000000',
    }),
  );
  await app.listen(0, '127.0.0.1');
  const base = await app.getUrl();
  let lines: string[] = [];
  const logger: TypeOrmLogger = {
    logQuery: (query, parameters) =>
      lines.push(`${query}${parameters?.length ? `  -- ${JSON.stringify(parameters)}` : ''}`),
    logQueryError: () => undefined,
    logQuerySlow: () => undefined,
    logSchemaBuild: () => undefined,
    logMigration: () => undefined,
    log: () => undefined,
  };
  Object.assign(app.get(DataSource), { logger });

  const requests = scenarioRequests({
    apiKey: tenant.apiKey,
    organizationId: tenant.organizationId,
    productId: tenant.productId,
    planIds,
    accountIds: accounts,
    triples,
  });
  for (const { name } of SCENARIOS) {
    const request = requests[name]();
    lines = [];
    const res = await fetch(`${base}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    });
    await res.text();
    process.stdout.write(`\n== ${name}: ${request.method} ${request.path} -> ${res.status}\n`);
    for (const line of lines) process.stdout.write(`${line}\n`);
  }
  await app.close();
  await database.drop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
