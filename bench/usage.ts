/**
 * Usage events (issue 43, docs/api.md §5.11), on SQLite and on PostgreSQL:
 *
 *   ingest  Events per second through `POST /v0/usageEvents` in batches of 100 and of 1,000,
 *           against bench/baseline/usage-server.ts (bare node:http, the same validation and
 *           the same deduplicating inserts with the same driver), side by side in this one run,
 *           alternating which goes first. Target: service ≥ 0.5 × baseline. `npm run bench`
 *           runs this part too (bench/run.ts, one short run of each).
 *   meter   The meter of one customer's month holding 100,000 events, with 10 thousand and
 *           then with 10 million other events stored (bulk SQL, not HTTP). Target: within 1.5×.
 *
 *   npm run bench:usage                        both parts, both databases, prints Markdown
 *   npm run bench:usage -- --db sqlite --parts ingest --duration 5 --others 1000000
 */
import { cpus, totalmem } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as ts from 'typescript';
import { BenchDatabase, Dialect, createBenchDatabase } from './lib/database';
import { runLoad } from './lib/load';
import { seedTenant } from './lib/seed';
import { ROOT, Target, startTarget } from './lib/servers';
import { loadAverage, median } from './lib/stats';
import { bulkEvents, othersStored, seedCustomer, seedSumMetric } from './lib/usage-rows';

export interface IngestOptions {
  durationSeconds: number;
  connections: number;
  repeats: number;
}

const DAY = 86_400_000;
const say = (line: string) => console.log(line);

/**
 * The baseline, transpiled under dist/bench/baseline/ so that its requires of the built service
 * (../../src/usage/…) and of node_modules resolve as in production.
 */
function buildBaseline(): string {
  const out = join(ROOT, 'dist', 'bench', 'baseline');
  mkdirSync(out, { recursive: true });
  const source = readFileSync(join(ROOT, 'bench', 'baseline', 'usage-server.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
  });
  writeFileSync(join(out, 'usage-server.js'), outputText);
  return join(out, 'usage-server.js');
}

function start(kind: 'service' | 'baseline', database: BenchDatabase): Promise<Target> {
  return startTarget({
    databaseUrl: database.url,
    name: `usage-${kind}`,
    env: { LOG_LEVEL: 'warn' },
    entry: kind === 'baseline' ? buildBaseline() : undefined,
  });
}

async function ingest(dialect: Dialect, options: IngestOptions): Promise<void> {
  const database = await createBenchDatabase(dialect);
  const sql = await database.connect();
  try {
    const tenant = await seedTenant(sql, 'Usage bench');
    const customers: string[] = [];
    for (let i = 0; i < 100; i++) customers.push(await seedCustomer(sql, tenant));
    const metricType = await seedSumMetric(sql, tenant, '$.tokens');
    let serial = 0;
    for (const batch of [100, 1000]) {
      const rates: Record<string, number[]> = { service: [], baseline: [] };
      for (let r = 0; r < options.repeats; r++) {
        const order =
          r % 2 === 0 ? (['baseline', 'service'] as const) : (['service', 'baseline'] as const);
        for (const kind of order) {
          const target = await start(kind, database);
          try {
            const result = await runLoad({
              url: target.url,
              connections: options.connections,
              durationSeconds: options.durationSeconds,
              expectStatus: 202,
              next: () => {
                const events = Array.from({ length: batch }, (_, i) => ({
                  idempotencyKey: `k${++serial}`,
                  type: i % 2 === 0 ? metricType : 'api.call',
                  customerId: customers[serial % customers.length],
                  data: { tokens: String((serial % 1000) + 0.25), model: 'small' },
                }));
                return {
                  method: 'POST',
                  path: '/v0/usageEvents',
                  headers: {
                    authorization: `Bearer ${tenant.apiKey}`,
                    'content-type': 'application/json',
                  },
                  body: JSON.stringify({ events }),
                };
              },
            });
            if (result.errors > 0)
              throw new Error(`${kind}: ${JSON.stringify(result.statusCodes)}`);
            rates[kind].push(result.rps * batch);
            await target.waitIdle();
          } finally {
            await target.stop();
          }
        }
      }
      const service = median(rates.service);
      const baseline = median(rates.baseline);
      say(
        `| ${dialect} | ${batch} | ${Math.round(service)} | ${Math.round(baseline)} | ` +
          `${(service / baseline).toFixed(2)} ${service / baseline >= 0.5 ? '✓' : '✗'} | ${loadAverage()} |`,
      );
    }
  } finally {
    await sql.close();
    await database.drop();
  }
}

async function meter(dialect: Dialect, others: number): Promise<void> {
  const database = await createBenchDatabase(dialect);
  const sql = await database.connect();
  try {
    const tenant = await seedTenant(sql, 'Meter bench');
    const customer = await seedCustomer(sql, tenant);
    const metric = await seedSumMetric(sql, tenant, '$.v');
    const month = Math.floor((Date.now() - 40 * DAY) / DAY) * DAY;
    await bulkEvents(sql, tenant, metric, 100_000, customer, month, 30 * DAY, 'uev_mine');
    const from = month - 60 * DAY;
    const totals = [10_000, others];
    for await (const { total, seeded } of othersStored(sql, tenant, metric, from, totals)) {
      const target = await start('service', database);
      try {
        const url = `${target.url}/v0/billableMetrics/${metric}/meter?customerId=${customer}&from=${new Date(month).toISOString()}&to=${new Date(month + 30 * DAY).toISOString()}`;
        const times: number[] = [];
        let body = '';
        for (let i = 0; i < 11; i++) {
          const t = performance.now();
          const res = await fetch(url, { headers: { authorization: `Bearer ${tenant.apiKey}` } });
          body = await res.text();
          if (res.status !== 200) throw new Error(body);
          if (i > 0) times.push(performance.now() - t);
        }
        say(
          `| ${dialect} | ${total.toLocaleString('en')} | ${median(times).toFixed(0)} ms ` +
            `(min ${Math.min(...times).toFixed(0)}) | ` +
            `${(JSON.parse(body) as { totalValue: string }).totalValue} | ${seeded} s | ${loadAverage()} |`,
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

/** The ingestion table: service and baseline side by side, on each of `dialects`. */
export async function usageIngestion(dialects: Dialect[], options: IngestOptions): Promise<void> {
  say(
    '\n| Database | Batch | Service events/s | Baseline events/s | Ratio (≥ 0.5) | Load (1, 5, 15 min) |',
  );
  say('| --- | --- | --- | --- | --- | --- |');
  for (const dialect of dialects) await ingest(dialect, options);
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      db: { type: 'string', default: 'sqlite,postgres' },
      parts: { type: 'string', default: 'ingest,meter' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '4' },
      repeats: { type: 'string', default: '2' },
      others: { type: 'string', default: '10000000' },
    },
  });
  say(
    `Machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, ` +
      `${Math.round(totalmem() / 1024 ** 3)} GB, Node ${process.version}; load at start ${loadAverage()}.`,
  );
  const dialects = args.db.split(',') as Dialect[];
  const parts = args.parts.split(',');
  if (parts.includes('ingest')) {
    await usageIngestion(dialects, {
      durationSeconds: Number(args.duration),
      connections: Number(args.connections),
      repeats: Number(args.repeats),
    });
  }
  if (parts.includes('meter')) {
    say(
      '\n| Database | Other events stored | Meter (median of 10) | totalValue | Seeding | Load |',
    );
    say('| --- | --- | --- | --- | --- | --- |');
    for (const dialect of dialects) await meter(dialect, Number(args.others));
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
