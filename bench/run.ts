/**
 * The benchmark: the built service and a bare node:http baseline (bench/baseline) doing the same
 * database work, each in a child process on loopback, loaded one after the other by the same
 * autocannon settings, on SQLite and on PostgreSQL. See docs/benchmarks.md for what it measures.
 *
 *   npm run bench          full mode: 10 s per run after a 3 s warm-up, 3 repeats, the 10k/1M
 *                          plans scale; writes docs/benchmarks.md (its generated section)
 *   npm run bench:quick    a few seconds per scenario, no scale: a smoke run
 *
 * Options (after `--`): --db sqlite,postgres  --scenarios getPlan,createPlan  --duration 10
 *   --warmup 3  --repeats 3  --connections 50  --scale 10000,1000000 | --no-scale
 *   --log-level info  --targets service,baseline  --profile (CPU profiles of both, under
 *   bench/results/profiles; read them with bench/profile-summary.ts)
 *   --write | --no-write (docs/benchmarks.md)
 *   --render bench/results/<run>.json   writes docs/benchmarks.md's generated section again from a
 *                          saved run, measuring nothing (after a change to the report's layout)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BenchDatabase, Dialect, SqlClient, createBenchDatabase } from './lib/database';
import { LoadResult, runLoad } from './lib/load';
import { Machine, Measurement, RunInfo, describeMachine, writeReport } from './lib/report';
import { SCENARIOS, ScenarioData, ScenarioName, scenarioRequests } from './lib/scenarios';
import {
  Tenant,
  samplePlanIds,
  seedExternalAccounts,
  seedFreePriceTriples,
  seedPlans,
  seedTenant,
} from './lib/seed';
import { ROOT, Target, TargetKind, buildBaseline, startTarget } from './lib/servers';

const ENCRYPTION_KEY = Buffer.alloc(32, 42).toString('base64');
const RESULTS_DIR = join(ROOT, 'bench', 'results');

export interface Options {
  mode: 'quick' | 'full';
  dialects: Dialect[];
  scenarios: ScenarioName[];
  targets: TargetKind[];
  connections: number;
  duration: number;
  warmup: number;
  repeats: number;
  /** Plans stored for the scale runs; empty: no scale runs. */
  scale: number[];
  logLevel: string;
  profile: boolean;
  write: boolean;
  /** A saved run (bench/results/*.json) to write the report from, measuring nothing. */
  render?: string;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      mode: { type: 'string', default: 'full' },
      db: { type: 'string', default: 'sqlite,postgres' },
      scenarios: { type: 'string' },
      targets: { type: 'string', default: 'service,baseline' },
      connections: { type: 'string', default: '50' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      repeats: { type: 'string' },
      scale: { type: 'string' },
      'no-scale': { type: 'boolean', default: false },
      'log-level': { type: 'string', default: 'info' },
      profile: { type: 'boolean', default: false },
      write: { type: 'boolean' },
      'no-write': { type: 'boolean', default: false },
      render: { type: 'string' },
    },
    strict: true,
  });
  const mode = values.mode === 'quick' ? 'quick' : 'full';
  const full = mode === 'full';
  const list = (raw: string | undefined) => (raw ? raw.split(',').filter(Boolean) : []);
  const scale = values['no-scale']
    ? []
    : values.scale
      ? list(values.scale).map(Number)
      : full
        ? [10_000, 1_000_000]
        : [];
  return {
    mode,
    dialects: list(values.db) as Dialect[],
    scenarios: (values.scenarios
      ? list(values.scenarios)
      : SCENARIOS.map((s) => s.name)) as ScenarioName[],
    targets: list(values.targets) as TargetKind[],
    connections: Number(values.connections),
    duration: Number(values.duration ?? (full ? 10 : 3)),
    warmup: Number(values.warmup ?? (full ? 3 : 1)),
    repeats: Number(values.repeats ?? (full ? 3 : 1)),
    scale,
    logLevel: values['log-level'],
    profile: values.profile,
    write: values['no-write'] ? false : (values.write ?? full),
    render: values.render,
  };
}

function log(message: string): void {
  process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** One row of load: a scenario against a tenant's data, labelled for the report. */
interface Case {
  suite: string;
  label: string;
  scenario: ScenarioName;
  tenant: Tenant;
  planIds: string[];
  accountIds: string[];
  /** Plans in the table, and of them the tenant's (scale runs). */
  storedPlans: number;
  tenantPlans: number;
}

/** A database with the service and the baseline running on it. */
interface Suite {
  name: string;
  dialect: Dialect;
  database: BenchDatabase;
  sql: SqlClient;
  targets: Partial<Record<TargetKind, Target>>;
  /** Best read throughput seen per target: sizes the free prices a create run needs. */
  readRps: Partial<Record<TargetKind, number>>;
}

const fmtCount = (n: number) =>
  n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n);

async function startSuite(options: Options, name: string, dialect: Dialect): Promise<Suite> {
  const database = await createBenchDatabase(dialect);
  const sql = await database.connect();
  return { name, dialect, database, sql, targets: {}, readRps: {} };
}

async function startTargets(options: Options, suite: Suite): Promise<void> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const baselineEntry = buildBaseline();
  for (const kind of options.targets) {
    const profileDir = join(RESULTS_DIR, 'profiles', suite.name, kind);
    if (options.profile) mkdirSync(profileDir, { recursive: true });
    suite.targets[kind] = await startTarget({
      kind,
      databaseUrl: suite.database.url,
      logFile: join(RESULTS_DIR, `${suite.name}-${kind}.log`),
      baselineEntry,
      nodeArgs: options.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
      env: {
        NODE_ENV: 'production',
        LOG_LEVEL: options.logLevel,
        ENCRYPTION_KEY,
        // The limiter still counts every request; it must not refuse the load.
        RATE_LIMIT_PER_SECOND: '1000000',
      },
    });
  }
}

async function stopSuite(suite: Suite): Promise<void> {
  for (const target of Object.values(suite.targets)) await target?.stop();
  await suite.sql.close();
  await suite.database.drop();
}

/** PostgreSQL after a bulk load: statistics and the visibility map, as autovacuum would leave them. */
async function settle(suite: Suite): Promise<void> {
  if (suite.dialect === 'postgres') await suite.sql.run('VACUUM ANALYZE');
}

async function waitAllIdle(suite: Suite): Promise<void> {
  for (const target of Object.values(suite.targets)) await target?.waitIdle();
}

async function measure(
  options: Options,
  suite: Suite,
  c: Case,
  measurements: Measurement[],
): Promise<void> {
  const scenario = SCENARIOS.find((s) => s.name === c.scenario)!;
  for (let repeat = 0; repeat < options.repeats; repeat++) {
    // Alternate who goes first, so a drift in the machine's load does not favour one side.
    const order = repeat % 2 === 0 ? options.targets : [...options.targets].reverse();
    for (const kind of order) {
      const target = suite.targets[kind]!;
      let result: LoadResult | undefined;
      let peak = NaN;
      let cpuUs = NaN;
      for (let attempt = 1; !result; attempt++) {
        const data: ScenarioData = {
          apiKey: c.tenant.apiKey,
          organizationId: c.tenant.organizationId,
          productId: c.tenant.productId,
          planIds: c.planIds,
          accountIds: c.accountIds,
          triples: [],
        };
        if (c.scenario === 'createPlan') {
          const rps = (suite.readRps[kind] ?? 5000) * attempt;
          const needed = Math.ceil(rps * (options.warmup + options.duration) * 1.2) + 100;
          data.triples = await seedFreePriceTriples(suite.sql, c.tenant, needed);
          // As autovacuum would after such an insert: without statistics PostgreSQL may scan.
          if (suite.dialect === 'postgres') await suite.sql.run('ANALYZE prices');
        }
        const requests = scenarioRequests(data);
        const next = requests[c.scenario];
        await waitAllIdle(suite);
        if (options.warmup > 0) {
          await runLoad({
            url: target.url,
            connections: options.connections,
            durationSeconds: options.warmup,
            expectStatus: scenario.status,
            next,
          });
          await target.waitIdle();
        }
        target.resetPeakMemory();
        const cpuBefore = target.cpuMs();
        const measured = await runLoad({
          url: target.url,
          connections: options.connections,
          durationSeconds: options.duration,
          expectStatus: scenario.status,
          next,
        });
        peak = target.peakMemoryMb();
        cpuUs = ((target.cpuMs() - cpuBefore) * 1000) / Math.max(1, measured.requests);
        if (c.scenario === 'createPlan' && requests.triplesUsed() > data.triples.length) {
          log(`  ${kind}: the free prices ran out; measuring again with more`);
          continue;
        }
        result = measured;
      }
      if (c.scenario === 'getPlan' || c.scenario === 'listPlans') {
        suite.readRps[kind] = Math.max(suite.readRps[kind] ?? 0, result.rps);
      }
      const m: Measurement = {
        suite: suite.name,
        dialect: suite.dialect,
        label: c.label,
        scenario: c.scenario,
        target: kind,
        repeat,
        storedPlans: c.storedPlans,
        tenantPlans: c.tenantPlans,
        rps: result.rps,
        p50: result.p50,
        p99: result.p99,
        peakRssMb: peak,
        cpuUsPerRequest: cpuUs,
        requests: result.requests,
        errors: result.errors,
        statusCodes: result.statusCodes,
      };
      measurements.push(m);
      log(
        `  ${suite.dialect} ${c.label} ${c.scenario} ${kind} #${repeat + 1}: ` +
          `${result.rps.toFixed(0)} rps, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, ` +
          `peak ${peak.toFixed(0)} MB, CPU ${cpuUs.toFixed(0)} µs/request${result.errors ? `, ${result.errors} errors ${JSON.stringify(result.statusCodes)}` : ''}`,
      );
    }
  }
}

/** The keys of a JSON value at every depth, sorted, with their value's type. */
function shape(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.length > 0 ? shape(value[0], `${path}[]`) : [`${path}[]`];
  if (value !== null && typeof value === 'object') {
    return Object.entries(value)
      .flatMap(([k, v]) => shape(v, `${path}.${k}`))
      .sort();
  }
  return [`${path}:${value === null ? 'null' : typeof value}`];
}

/**
 * The baseline must answer what the service answers: the same body for the reads, the same
 * shape for the writes. Checked once per suite before any load, with one request of each.
 */
async function checkParity(
  suite: Suite,
  data: ScenarioData,
  scenarios: ScenarioName[],
): Promise<void> {
  const service = suite.targets.service;
  const baseline = suite.targets.baseline;
  if (!service || !baseline) return;
  const send = async (
    url: string,
    r: ReturnType<ReturnType<typeof scenarioRequests>[ScenarioName]>,
  ) => {
    const res = await fetch(`${url}${r.path}`, {
      method: r.method,
      headers: r.headers,
      body: r.body,
    });
    return { status: res.status, body: await res.json() };
  };
  for (const name of scenarios) {
    const expected = SCENARIOS.find((s) => s.name === name)!.status;
    const a = await send(service.url, scenarioRequests(data)[name]());
    const generators = scenarioRequests({ ...data, triples: data.triples.slice(1) });
    const b = await send(baseline.url, generators[name]());
    const same =
      name === 'getPlan' || name === 'listPlans'
        ? JSON.stringify(a.body) === JSON.stringify(b.body)
        : JSON.stringify(shape(a.body)) === JSON.stringify(shape(b.body));
    if (a.status !== expected || b.status !== expected || !same) {
      throw new Error(
        `${suite.name} ${name}: the service and the baseline disagree:\n` +
          `service ${a.status} ${JSON.stringify(a.body)}\nbaseline ${b.status} ${JSON.stringify(b.body)}`,
      );
    }
  }
}

/** The scenarios of the issue on a small database: 1,000 plans of 3 prices, 1,000 accounts. */
async function mainSuite(options: Options, dialect: Dialect, out: Measurement[]): Promise<void> {
  const suite = await startSuite(options, `main-${dialect}`, dialect);
  try {
    log(`${dialect}: seeding`);
    const tenant = await seedTenant(suite.sql, 'Bench');
    await seedPlans(suite.sql, tenant, 1000);
    const accountIds = await seedExternalAccounts(
      suite.sql,
      tenant,
      1000,
      Buffer.from(ENCRYPTION_KEY, 'base64'),
    );
    const planIds = await samplePlanIds(suite.sql, tenant, 1000);
    await settle(suite);
    await startTargets(options, suite);
    await checkParity(
      suite,
      {
        apiKey: tenant.apiKey,
        organizationId: tenant.organizationId,
        productId: tenant.productId,
        planIds,
        accountIds,
        triples: await seedFreePriceTriples(suite.sql, tenant, 2),
      },
      options.scenarios,
    );
    for (const scenario of SCENARIOS.filter((s) => options.scenarios.includes(s.name))) {
      log(`${dialect}: ${scenario.title}`);
      await measure(
        options,
        suite,
        {
          suite: suite.name,
          label: 'main',
          scenario: scenario.name,
          tenant,
          planIds,
          accountIds,
          storedPlans: 1000,
          tenantPlans: 1000,
        },
        out,
      );
    }
  } finally {
    await stopSuite(suite);
  }
}

/**
 * The reads and the create with `size` plans stored. Above 10,000 the table holds two
 * organizations: one owning `size` plans, one owning 10,000; the second shows what a tenant of
 * ordinary size pays in a big table, the first what one organization with every plan pays.
 */
async function scaleSuite(
  options: Options,
  dialect: Dialect,
  size: number,
  out: Measurement[],
): Promise<void> {
  const suite = await startSuite(options, `scale-${fmtCount(size)}-${dialect}`, dialect);
  try {
    const small = 10_000;
    const started = Date.now();
    const tenants: { tenant: Tenant; plans: number }[] = [];
    const big = await seedTenant(suite.sql, 'Big');
    log(`${dialect}: seeding ${fmtCount(size)} plans (3 prices each)`);
    await seedPlans(suite.sql, big, size, (done) =>
      done % 200_000 === 0 ? log(`  ${fmtCount(done)} plans`) : undefined,
    );
    tenants.push({ tenant: big, plans: size });
    if (size > small) {
      const other = await seedTenant(suite.sql, 'Ordinary');
      await seedPlans(suite.sql, other, small);
      tenants.push({ tenant: other, plans: small });
    }
    await settle(suite);
    const stored = tenants.reduce((sum, t) => sum + t.plans, 0);
    log(
      `${dialect}: ${fmtCount(stored)} plans seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    await startTargets(options, suite);
    const scenarios = (['getPlan', 'listPlans', 'createPlan'] as ScenarioName[]).filter((s) =>
      options.scenarios.includes(s),
    );
    for (const scenario of scenarios) {
      for (const { tenant, plans } of tenants) {
        // A create's cost depends on the table, not on whose plan it is: one tenant is enough.
        if (scenario === 'createPlan' && tenant !== big) continue;
        const label =
          plans === stored
            ? `${fmtCount(stored)} stored`
            : `${fmtCount(plans)} of ${fmtCount(stored)}`;
        log(`${dialect}: ${label}: ${scenario}`);
        await measure(
          options,
          suite,
          {
            suite: suite.name,
            label,
            scenario,
            tenant,
            planIds: await samplePlanIds(suite.sql, tenant, 1000),
            accountIds: [],
            storedPlans: stored,
            tenantPlans: plans,
          },
          out,
        );
      }
    }
  } finally {
    await stopSuite(suite);
  }
}

function commandLine(): string {
  const event = process.env.npm_lifecycle_event;
  const script = event?.startsWith('bench') ? event : undefined;
  const args = process.argv.slice(2);
  const fromNpm = script ? `npm run ${script}` : 'ts-node --transpile-only bench/run.ts';
  return args.length > 0 ? `${fromNpm} -- ${args.join(' ')}` : fromNpm;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.render) {
    const saved = JSON.parse(readFileSync(options.render, 'utf8')) as {
      run: RunInfo;
      measurements: Measurement[];
    };
    writeReport(join(ROOT, 'docs', 'benchmarks.md'), saved.run, saved.measurements);
    log(`report written from ${options.render}`);
    return;
  }
  const machineBefore: Machine = describeMachine();
  const started = new Date();
  log(
    `mode ${options.mode}: ${options.duration} s runs after ${options.warmup} s warm-up, ` +
      `${options.repeats} repeat(s), ${options.connections} connections; load ${machineBefore.load}`,
  );
  const measurements: Measurement[] = [];
  for (const dialect of options.dialects) await mainSuite(options, dialect, measurements);
  for (const dialect of options.dialects) {
    for (const size of options.scale) await scaleSuite(options, dialect, size, measurements);
  }
  const run: RunInfo = {
    command: commandLine(),
    mode: options.mode,
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    connections: options.connections,
    duration: options.duration,
    warmup: options.warmup,
    repeats: options.repeats,
    logLevel: options.logLevel,
    machineBefore,
    machineAfter: describeMachine(),
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const json = join(RESULTS_DIR, `${stamp}-${options.mode}.json`);
  writeFileSync(json, JSON.stringify({ run, measurements }, null, 2));
  const target = options.write
    ? join(ROOT, 'docs', 'benchmarks.md')
    : join(RESULTS_DIR, `${stamp}-${options.mode}.md`);
  writeReport(target, run, measurements);
  log(`results: ${json}; report: ${target}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
