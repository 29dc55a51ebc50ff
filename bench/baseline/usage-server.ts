/**
 * The ingestion baseline of bench/usage.ts: a bare node:http server doing what
 * `POST /v0/usageEvents` does (docs/api.md §5.11) with the same driver and none of the framework:
 * the API key's hash looked up, the body read (1 MB at most) and parsed, the same validation
 * (readUsageEvents and the value rules, from the built service), the customers and metrics read,
 * and the same deduplicating inserts in one transaction, then 202. Started like the service:
 * DATABASE_URL, HOST, PORT.
 */
import Sqlite from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { IncomingMessage, ServerResponse, createServer } from 'node:http';
import { Pool, PoolClient } from 'pg';
import { ulid } from 'ulid';
/* eslint-disable @typescript-eslint/no-require-imports -- the built service's modules, under dist/ */
const { readUsageEvents } = require('../../src/usage/usage-event-input') as typeof import('../../src/usage/usage-event-input');
const { decimalValue, pathOf, uniqueKey, valueAt } = require('../../src/usage/usage-values') as typeof import('../../src/usage/usage-values');
const { withInexactNumbersMarked } = require('../../src/common/json-numbers') as typeof import('../../src/common/json-numbers');
/* eslint-enable @typescript-eslint/no-require-imports */

type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;
interface Db {
  /** Runs `work` in one transaction (BEGIN IMMEDIATE on SQLite). */
  transaction<T>(work: (q: Query) => Promise<T>): Promise<T>;
  query: Query;
  pg: boolean;
}

const url = process.env.DATABASE_URL ?? '';
const db: Db = url.startsWith('sqlite:') ? sqliteDb(url.slice(7)) : postgresDb(url);
const MAX_BYTES = 1024 * 1024;

function sqliteDb(path: string): Db {
  const conn = new Sqlite(path, { timeout: 5000 });
  conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = NORMAL');
  const statements = new Map<string, Sqlite.Statement>();
  const query: Query = (sql, params) => {
    let s = statements.get(sql);
    if (!s) statements.set(sql, (s = conn.prepare(sql)));
    const values = params.map((p) => (typeof p === 'boolean' ? Number(p) : p));
    return Promise.resolve(
      s.reader ? (s.all(...values) as Record<string, unknown>[]) : (s.run(...values), []),
    );
  };
  return {
    pg: false,
    query,
    // Synchronous driver: a request's statements run in one go, nothing interleaves.
    async transaction(work) {
      conn.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(query);
        conn.exec('COMMIT');
        return result;
      } catch (err) {
        conn.exec('ROLLBACK');
        throw err;
      }
    },
  };
}

function postgresDb(connectionString: string): Db {
  const pool = new Pool({ connectionString, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  const on =
    (client: Pool | PoolClient): Query =>
    async (sql, params) =>
      (await client.query(numbered(sql), params)).rows as Record<string, unknown>[];
  return {
    pg: true,
    query: on(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(on(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

const list = (n: number) => Array.from({ length: n }, () => '?').join(', ');
const stamp = (d: Date) => (db.pg ? d : d.toISOString().replace('T', ' ').replace('Z', ''));

async function ingest(tenant: { org: string; live: boolean }, body: unknown) {
  const read = readUsageEvents(body);
  if (read.errors.length > 0) return { status: 400, body: { errors: read.errors } };
  return db.transaction(async (q) => {
    const errors: { field: string }[] = [];
    const ids = [...new Set(read.events.map((e) => e.customer.customerId).filter(Boolean))];
    const externals = [
      ...new Set(read.events.map((e) => e.customer.externalCustomerId).filter(Boolean)),
    ];
    const customers = await q(
      `SELECT "id", "external_id" FROM "customers" WHERE "organization_id" = ? AND "livemode" = ? ` +
        `AND "deleted_at" IS NULL AND ("id" IN (${list(ids.length) || 'NULL'}) OR "external_id" IN (${list(externals.length) || 'NULL'}))`,
      [tenant.org, tenant.live, ...ids, ...externals],
    );
    const byId = new Map(customers.map((c) => [c.id as string, c.id as string]));
    const byExternal = new Map(customers.map((c) => [c.external_id as string, c.id as string]));
    const types = [...new Set(read.events.map((e) => e.type))];
    const metrics = await q(
      `SELECT "id", "aggregation", "value_property", "event_type" FROM "billable_metrics" ` +
        `WHERE "organization_id" = ? AND "livemode" = ? AND ("event_type" IN (${list(types.length)}) OR ("event_type" IS NULL AND "id" IN (${list(types.length)})))`,
      [tenant.org, tenant.live, ...types, ...types],
    );
    const now = Date.now();
    const seen = new Set<string>();
    const rows: unknown[][] = [];
    for (const e of read.events) {
      for (const m of metrics) {
        if ((m.event_type ?? m.id) !== e.type || m.aggregation === 'COUNT') continue;
        const raw = valueAt(e.data, pathOf(m.value_property as string));
        const ok = m.aggregation === 'UNIQUE_COUNT' ? uniqueKey(raw) : decimalValue(raw);
        if (ok === undefined) errors.push({ field: `events[${e.index}].data` });
      }
      const customerId = e.customer.customerId
        ? byId.get(e.customer.customerId)
        : byExternal.get(e.customer.externalCustomerId!);
      if (!customerId) errors.push({ field: `events[${e.index}].customerId` });
      const timestamp = e.timestamp ?? new Date(now);
      const offset = timestamp.getTime() - now;
      if (offset < -90 * 86_400_000 || offset > 300_000) {
        errors.push({ field: `events[${e.index}].timestamp` });
      }
      if (seen.has(e.idempotencyKey) || !customerId) continue;
      seen.add(e.idempotencyKey);
      const data = JSON.stringify(e.data);
      const created = stamp(new Date(now));
      rows.push([`uev_${ulid()}`, tenant.org, tenant.live, e.idempotencyKey, customerId, e.type, stamp(timestamp), data, created]);
    }
    if (errors.length > 0) throw Object.assign(new Error('invalid'), { errors });
    rows.sort((a, b) => ((a[3] as string) < (b[3] as string) ? -1 : 1));
    let accepted = 0;
    for (let i = 0; i < rows.length; i += 250) {
      const chunk = rows.slice(i, i + 250);
      const inserted = await q(
        `INSERT INTO "usage_events" ("id", "organization_id", "livemode", "idempotency_key", "customer_id", "type", "timestamp", "data", "created_at") ` +
          `VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} ON CONFLICT DO NOTHING RETURNING "id"`,
        chunk.flat(),
      );
      accepted += inserted.length;
    }
    return { status: 202, body: { accepted, duplicates: read.events.length - accepted } };
  });
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BYTES) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<{ status: number; body: unknown }> {
  if (req.method === 'GET' && req.url === '/healthz') return { status: 200, body: { status: 'ok' } };
  const header = req.headers.authorization ?? '';
  const hash = createHash('sha256').update(header.slice(7)).digest('hex');
  const [key] = await db.query(
    `SELECT "organization_id", "mode" FROM "api_keys" WHERE "key_hash" = ? AND "revoked_at" IS NULL`,
    [hash],
  );
  if (!key) return { status: 401, body: { error: 'unauthorized' } };
  if (req.method !== 'POST' || req.url !== '/v0/usageEvents') return { status: 404, body: {} };
  const text = await readBody(req);
  if (text === null) return { status: 413, body: { error: 'payload_too_large' } };
  void res;
  const body = withInexactNumbersMarked(text, JSON.parse(text));
  try {
    return await ingest({ org: key.organization_id as string, live: key.mode === 'live' }, body);
  } catch (err) {
    const errors = (err as { errors?: unknown }).errors;
    if (errors) return { status: 400, body: { errors } };
    throw err;
  }
}

createServer((req, res) => {
  handle(req, res).then(
    ({ status, body }) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    },
    (err: unknown) => {
      console.error(err);
      res.writeHead(500).end();
    },
  );
}).listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1');
