/**
 * What webhook delivery does, on SQLite and on PostgreSQL (docs/benchmarks.md, "Webhooks"):
 *
 *   fanout  Deliveries per second from one instance to a local receiver (bench/lib/receiver.ts).
 *           An instance with WEBHOOK_DISPATCHER=off creates 4 endpoints subscribed to `*` and
 *           500 plans of 3 prices (4 events each: 8,000 deliveries); an instance with the
 *           defaults then delivers them. Timed at the receiver over the steady span, from the
 *           delivery at 20% to the one at 90% (past a fresh process's warm-up, before the queue
 *           runs dry), and first to last; CPU of the delivering process per delivery.
 *   lag     While the create load runs (50 connections for 10 s) with one endpoint subscribed
 *           to `*`: how long after its event was created each delivery arrives (the receiver
 *           reads the event's createdAt). The largest is the age the oldest undelivered event
 *           reached. Target: under 2 s. Also: how long after the load the last one arrives.
 *
 *   npm run bench:events [-- --db sqlite,postgres --parts fanout,lag --repeats 2
 *                            --deliveries 8000 --duration 10 --connections 50]
 *
 * It measures through the HTTP API and the receiver only (no table of the service is read), and
 * prints a Markdown table for docs/benchmarks.md; the runs are saved under bench/results/.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { BenchDatabase, Dialect, SqlClient, createBenchDatabase } from './lib/database';
import { runLoad } from './lib/load';
import { Receiver } from './lib/receiver';
import { scenarioRequests } from './lib/scenarios';
import { Tenant, seedFreePriceTriples, seedPlans, seedTenant } from './lib/seed';
import { RESULTS_DIR, Target, startTarget } from './lib/servers';
import { loadAverage, log } from './lib/stats';

const FANOUT_ENDPOINTS = 4;
const EVENTS_PER_CREATE = 4; // plan.created and 3 × price.created
const STEADY: [number, number] = [0.2, 0.9];
/** Plans stored before a run, as a service in use has. */
const SEEDED_PLANS = 5_000;
const LAG_TARGET_S = 2;

type Part = 'fanout' | 'lag';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite,postgres' },
    parts: { type: 'string', default: 'fanout,lag' },
    repeats: { type: 'string', default: '2' },
    deliveries: { type: 'string', default: '8000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
  },
});
const options = {
  dialects: values.db.split(',') as Dialect[],
  parts: values.parts.split(',') as Part[],
  repeats: Number(values.repeats),
  deliveries: Number(values.deliveries),
  duration: Number(values.duration),
  connections: Number(values.connections),
};

interface FanoutRun {
  dialect: Dialect;
  deliveries: number;
  perSecond: number;
  steadyPerSecond: number;
  cpuUsPerDelivery: number;
  forged: number;
}

interface LagRun {
  dialect: Dialect;
  createsPerSecond: number;
  events: number;
  maxLag: number;
  p99Lag: number;
  drainSeconds: number;
  forged: number;
}

function startService(name: string, database: BenchDatabase, env: Record<string, string> = {}) {
  return startTarget({
    databaseUrl: database.url,
    name: `events-${name}`,
    // The receiver listens on loopback.
    env: { LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...env },
  });
}

async function createEndpoint(
  target: Target,
  tenant: Tenant,
  receiver: Receiver,
  path: string,
): Promise<void> {
  const res = await fetch(`${target.url}/v0/webhookEndpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${receiver.url}${path}`, enabledEvents: ['*'] }),
  });
  if (res.status !== 201) throw new Error(`POST /v0/webhookEndpoints: ${res.status}`);
  receiver.secretFor(path, ((await res.json()) as { secret: string }).secret);
}

/** `creates` plans of 3 prices through the API, 8 at a time. */
async function createPlans(sql: SqlClient, target: Target, tenant: Tenant, creates: number) {
  const triples = await seedFreePriceTriples(sql, tenant, creates);
  await sql.run('ANALYZE prices'); // as autovacuum (PostgreSQL) or the service's own ANALYZE (SQLite) would
  const next = scenarioRequests({ ...tenant, planIds: [], accountIds: [], triples }).createPlan;
  let left = creates;
  const worker = async () => {
    while (left-- > 0) {
      const r = next();
      const res = await fetch(`${target.url}${r.path}`, { ...r });
      if (res.status !== 201) throw new Error(`POST /v0/plans: ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** A fresh database with a tenant, its plans, and statistics as a database in use has them. */
async function withDatabase(
  dialect: Dialect,
  work: (db: BenchDatabase, sql: SqlClient, tenant: Tenant) => Promise<void>,
) {
  const database = await createBenchDatabase(dialect);
  const sql = await database.connect();
  try {
    const tenant = await seedTenant(sql, 'Bench');
    await seedPlans(sql, tenant, SEEDED_PLANS);
    await sql.run('ANALYZE');
    await work(database, sql, tenant);
  } finally {
    await sql.close();
    await database.drop();
  }
}

/** Rejects if `work` takes more than `seconds` (an unreferenced timer: it never holds the process). */
function within<T>(work: Promise<T>, seconds: number, what: string): Promise<T> {
  const late = sleep(seconds * 1000, null, { ref: false }).then(() => {
    throw new Error(`${what}: not done in ${seconds} s`);
  });
  return Promise.race([work, late]);
}

async function fanout(dialect: Dialect, receiver: Receiver, out: FanoutRun[]): Promise<void> {
  await withDatabase(dialect, async (database, sql, tenant) => {
    const creates = Math.ceil(options.deliveries / FANOUT_ENDPOINTS / EVENTS_PER_CREATE);
    const deliveries = creates * EVENTS_PER_CREATE * FANOUT_ENDPOINTS;
    const queuer = await startService(`fanout-${dialect}-queue`, database, {
      WEBHOOK_DISPATCHER: 'off',
    });
    try {
      for (let i = 0; i < FANOUT_ENDPOINTS; i++) {
        await createEndpoint(queuer, tenant, receiver, `/endpoint-${i}`);
      }
      for (let repeat = 0; repeat < options.repeats; repeat++) {
        await createPlans(sql, queuer, tenant, creates);
        await queuer.waitIdle();
        const marks = STEADY.map((f) => Math.ceil(deliveries * f)) as [number, number];
        const all = receiver.expect(deliveries, marks);
        const sender = await startService(`fanout-${dialect}-deliver`, database);
        const cpuBefore = sender.cpuMs();
        try {
          const s = await within(all, 600, `${dialect} fan-out`);
          const run: FanoutRun = {
            dialect,
            deliveries,
            perSecond: ((deliveries - 1) * 1000) / (s.last - s.first),
            steadyPerSecond: ((marks[1] - marks[0]) * 1000) / (s.toAt - s.fromAt),
            cpuUsPerDelivery: ((sender.cpuMs() - cpuBefore) * 1000) / deliveries,
            forged: s.forged,
          };
          out.push(run);
          log(
            `  ${dialect} fanout #${repeat + 1}: ${deliveries} deliveries, ${run.steadyPerSecond.toFixed(0)}/s steady, ` +
              `${run.perSecond.toFixed(0)}/s first to last, CPU ${run.cpuUsPerDelivery.toFixed(0)} µs/delivery, ` +
              `signatures ${s.verified} good ${s.forged} bad`,
          );
          await sender.waitIdle(); // the last outcomes are recorded after their answers
        } finally {
          await sender.stop();
        }
      }
    } finally {
      await queuer.stop();
    }
  });
}

async function lag(dialect: Dialect, receiver: Receiver, out: LagRun[]): Promise<void> {
  await withDatabase(dialect, async (database, sql, tenant) => {
    const target = await startService(`lag-${dialect}`, database);
    try {
      await createEndpoint(target, tenant, receiver, '/lag');
      for (let repeat = 0; repeat < options.repeats; repeat++) {
        const triples = await seedFreePriceTriples(sql, tenant, options.duration * 3000);
        await sql.run('ANALYZE prices');
        await target.waitIdle();
        void receiver.expect(null);
        const load = await runLoad({
          url: target.url,
          connections: options.connections,
          durationSeconds: options.duration,
          expectStatus: 201,
          next: scenarioRequests({ ...tenant, planIds: [], accountIds: [], triples }).createPlan,
        });
        const ended = Date.now();
        const events = (load.requests - load.errors) * EVENTS_PER_CREATE;
        let s = await receiver.status();
        while (s.count < events && Date.now() - ended < 120_000) {
          await sleep(100);
          s = await receiver.status();
        }
        if (s.count < events) throw new Error(`${dialect} lag: ${s.count} of ${events} delivered`);
        const run: LagRun = {
          dialect,
          createsPerSecond: load.rps,
          events,
          maxLag: s.maxLag,
          p99Lag: s.p99Lag,
          drainSeconds: (Date.now() - ended) / 1000,
          forged: s.forged,
        };
        out.push(run);
        log(
          `  ${dialect} lag #${repeat + 1}: ${load.rps.toFixed(0)} creates/s${load.errors ? ` (${load.errors} errors)` : ''}, ` +
            `${events} events, delivered at most ${run.maxLag.toFixed(2)} s after their creation ` +
            `(p99 ${run.p99Lag.toFixed(2)} s), the last ${run.drainSeconds.toFixed(1)} s after the load`,
        );
      }
    } finally {
      await target.stop();
    }
  });
}

const NAME: Record<Dialect, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
/** `min-max` of one figure over the runs, or – when there were none. */
function range<T>(runs: T[], figure: (run: T) => number, digits = 0): string {
  if (runs.length === 0) return '–';
  const xs = runs.map(figure);
  return `${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}`;
}

function table(fanouts: FanoutRun[], lags: LagRun[]): string {
  const lines = [
    '| database | fan-out, deliveries/s (steady; first to last) | CPU µs/delivery | lag: oldest undelivered, s (target < 2) | lag p99, s | creates/s during the lag runs |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const dialect of options.dialects) {
    const f = fanouts.filter((r) => r.dialect === dialect);
    const l = lags.filter((r) => r.dialect === dialect);
    const over = l.some((r) => r.maxLag >= LAG_TARGET_S) ? ' (**over**)' : '';
    lines.push(
      `| ${NAME[dialect]} | ${range(f, (r) => r.steadyPerSecond)}; ${range(f, (r) => r.perSecond)} ` +
        `| ${range(f, (r) => r.cpuUsPerDelivery)} | ${range(l, (r) => r.maxLag, 2)}${over} ` +
        `| ${range(l, (r) => r.p99Lag, 2)} | ${range(l, (r) => r.createsPerSecond)} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const started = new Date();
  log(
    `bench:events ${options.parts.join(', ')} on ${options.dialects.join(', ')}; load ${loadAverage()}`,
  );
  const receiver = new Receiver();
  await receiver.start();
  const fanouts: FanoutRun[] = [];
  const lags: LagRun[] = [];
  try {
    for (const dialect of options.dialects) {
      if (options.parts.includes('fanout')) await fanout(dialect, receiver, fanouts);
      if (options.parts.includes('lag')) await lag(dialect, receiver, lags);
    }
  } finally {
    await receiver.close();
  }
  if ([...fanouts, ...lags].some((r) => r.forged > 0))
    throw new Error('a signature did not verify');
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  writeFileSync(
    join(RESULTS_DIR, `events-${stamp}.json`),
    JSON.stringify({ options, fanouts, lags }, null, 2),
  );
  process.stdout.write(
    `\n${started.toISOString()} to ${new Date().toISOString()}, Node ${process.version}, load ${loadAverage()}:\n\n${table(fanouts, lags)}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
