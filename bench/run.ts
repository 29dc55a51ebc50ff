/**
 * The load benchmark: the built service in a child process on loopback, on a seeded database
 * (1,000 plans of 3 prices, 1,000 bank accounts), loaded by autocannon one scenario after the
 * other (bench/lib/scenarios.ts), on SQLite and on PostgreSQL. For each run: responses a second,
 * latency p50 and p99, and the service process's CPU per response. Then, side by side, usage
 * ingestion of the service and of its bare node:http baseline (bench/usage.ts, one run of
 * --usage-duration seconds each; `npm run bench:usage` is the full one). See docs/benchmarks.md.
 *
 *   npm run bench          3 s warm-up, then 3 runs of 10 s per scenario
 *   npm run bench:quick    one run of 3 s, no warm-up: a smoke run
 *
 * Options (after `--`): --db sqlite,postgres  --scenarios getPlan,createPlan  --duration 10
 *   --warmup 3  --repeats 3  --connections 50  --mode quick|full  --usage-duration 3 (0: none)
 * Prints a Markdown table for docs/benchmarks.md; the runs are saved under bench/results/.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Dialect, createBenchDatabase } from './lib/database';
import { runLoad } from './lib/load';
import { SCENARIOS, ScenarioName, scenarioRequests } from './lib/scenarios';
import {
  samplePlanIds,
  seedExternalAccounts,
  seedFreePriceTriples,
  seedPlans,
  seedTenant,
} from './lib/seed';
import { RESULTS_DIR, SERVICE_ENV, startTarget } from './lib/servers';
import { loadAverage, log, median } from './lib/stats';
import { usageIngestion } from './usage';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'full' },
    db: { type: 'string', default: 'sqlite,postgres' },
    scenarios: { type: 'string', default: SCENARIOS.map((s) => s.name).join(',') },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    repeats: { type: 'string' },
    connections: { type: 'string', default: '50' },
    'usage-duration': { type: 'string', default: '3' },
  },
});
const quick = values.mode === 'quick';
const options = {
  dialects: values.db.split(',') as Dialect[],
  scenarios: values.scenarios.split(',') as ScenarioName[],
  duration: Number(values.duration ?? (quick ? 3 : 10)),
  warmup: Number(values.warmup ?? (quick ? 0 : 3)),
  repeats: Number(values.repeats ?? (quick ? 1 : 3)),
  connections: Number(values.connections),
  usageDuration: Number(values['usage-duration']),
};

interface Run {
  dialect: Dialect;
  scenario: ScenarioName;
  rps: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number;
  errors: number;
}

async function measure(dialect: Dialect, out: Run[]): Promise<void> {
  const database = await createBenchDatabase(dialect);
  const sql = await database.connect();
  try {
    log(`${dialect}: seeding`);
    const tenant = await seedTenant(sql, 'Bench');
    await seedPlans(sql, tenant, 1000);
    const key = Buffer.from(SERVICE_ENV.ENCRYPTION_KEY, 'base64');
    const accountIds = await seedExternalAccounts(sql, tenant, 1000, key);
    const planIds = await samplePlanIds(sql, tenant, 1000);
    // Enough free prices for the creates: three per create, up to 1,500 creates a second.
    const creates = (options.warmup + options.duration * options.repeats) * 1500;
    const triples = options.scenarios.includes('createPlan')
      ? await seedFreePriceTriples(sql, tenant, creates)
      : [];
    await sql.run('ANALYZE');
    const target = await startTarget({ databaseUrl: database.url, name: `bench-${dialect}` });
    try {
      const requests = scenarioRequests({ ...tenant, planIds, accountIds, triples });
      for (const scenario of SCENARIOS.filter((s) => options.scenarios.includes(s.name))) {
        const load = (durationSeconds: number) =>
          runLoad({
            url: target.url,
            connections: options.connections,
            durationSeconds,
            expectStatus: scenario.status,
            next: requests[scenario.name],
          });
        if (options.warmup > 0) await load(options.warmup);
        for (let repeat = 0; repeat < options.repeats; repeat++) {
          await target.waitIdle();
          const cpuBefore = target.cpuMs();
          const r = await load(options.duration);
          const cpuUsPerRequest = ((target.cpuMs() - cpuBefore) * 1000) / Math.max(1, r.requests);
          out.push({ dialect, scenario: scenario.name, ...r, cpuUsPerRequest });
          log(
            `  ${dialect} ${scenario.title} #${repeat + 1}: ${r.rps.toFixed(0)} rps, ` +
              `p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, CPU ${cpuUsPerRequest.toFixed(0)} µs/request` +
              (r.errors ? `, ${r.errors} errors ${JSON.stringify(r.statusCodes)}` : ''),
          );
        }
      }
    } finally {
      await target.stop();
    }
  } finally {
    await sql.close();
    await database.drop();
  }
}

function table(runs: Run[]): string {
  const lines = [
    '| database | scenario | requests/s | p50 ms | p99 ms | CPU µs/request | errors |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const dialect of options.dialects) {
    for (const scenario of SCENARIOS) {
      const rs = runs.filter((r) => r.dialect === dialect && r.scenario === scenario.name);
      if (rs.length === 0) continue;
      const m = (f: (r: Run) => number, digits = 0) => median(rs.map(f)).toFixed(digits);
      lines.push(
        `| ${dialect} | ${scenario.title} | ${m((r) => r.rps)} | ${m((r) => r.p50, 2)} | ` +
          `${m((r) => r.p99, 2)} | ${m((r) => r.cpuUsPerRequest)} | ${rs.reduce((n, r) => n + r.errors, 0)} |`,
      );
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const started = new Date();
  log(
    `${options.duration} s runs after ${options.warmup} s warm-up, ${options.repeats} repeat(s), ` +
      `${options.connections} connections; load ${loadAverage()}`,
  );
  const runs: Run[] = [];
  for (const dialect of options.dialects) await measure(dialect, runs);
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  writeFileSync(
    join(RESULTS_DIR, `bench-${stamp}.json`),
    JSON.stringify({ options, runs }, null, 2),
  );
  process.stdout.write(
    `\n${started.toISOString()} to ${new Date().toISOString()}, Node ${process.version}, ` +
      `load ${loadAverage()} (medians of ${options.repeats}):\n\n${table(runs)}\n`,
  );
  if (options.usageDuration > 0) {
    log(`usage ingestion, service and baseline side by side, ${options.usageDuration} s each`);
    await usageIngestion(options.dialects, {
      durationSeconds: options.usageDuration,
      connections: 4,
      repeats: 1,
    });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
