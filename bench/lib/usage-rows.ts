/**
 * Usage rows in bulk SQL for the benchmarks (bench/usage.ts, bench/upcoming-invoice.ts): a
 * customer row, and millions of usage events in a few INSERT … SELECT statements.
 */
import { newId } from '../../src/common/ids';
import { SqlClient } from './database';
import { Tenant } from './seed';

/** A customer row as the customers migration makes it. */
export async function seedCustomer(sql: SqlClient, tenant: Tenant): Promise<string> {
  const id = newId('cus');
  const now = new Date();
  await sql.run(
    'INSERT INTO customers (id, organization_id, livemode, name, email, external_id, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [
      id,
      tenant.organizationId,
      sql.dialect === 'sqlite' ? 1 : true,
      'Bench',
      'b@example.com',
      id,
      {},
      now,
      now,
    ],
  );
  return id;
}

const DAY = 86_400_000;

/** Makes the tenant's first metric a SUM of `property` of its events' data; returns its id. */
export async function seedSumMetric(sql: SqlClient, tenant: Tenant, property: string) {
  const id = tenant.metricIds[0];
  await sql.run('UPDATE billable_metrics SET aggregation = ?, value_property = ? WHERE id = ?', [
    'SUM',
    property,
    id,
  ]);
  return id;
}

/**
 * The events of 1,000 other customers over the 120 days from `from`, stored up to each of
 * `totals` in turn (then ANALYZEd on PostgreSQL, as a table that grew would be): yields each
 * total and the seconds its seeding took.
 */
export async function* othersStored(
  sql: SqlClient,
  tenant: Tenant,
  type: string,
  from: number,
  totals: number[],
) {
  let stored = 0;
  for (const total of totals) {
    const started = Date.now();
    await bulkEvents(sql, tenant, type, total - stored, null, from, 120 * DAY, `uev_o${total}_`);
    stored = total;
    if (sql.dialect === 'postgres') await sql.run('ANALYZE usage_events');
    yield { total, seeded: ((Date.now() - started) / 1000).toFixed(0) };
  }
}

/** `count` events of other customers (or of `customerId`), spread over `from` + `spanMs`. */
export async function bulkEvents(
  sql: SqlClient,
  tenant: Tenant,
  type: string,
  count: number,
  customer: string | null,
  from: number,
  spanMs: number,
  prefix: string,
): Promise<void> {
  const pg = sql.dialect === 'postgres';
  const step = Math.max(1, Math.floor(spanMs / count));
  const who = customer === null ? `'cus_other' || (n % 1000)` : '?';
  const params = [
    tenant.organizationId,
    ...(customer === null ? [] : [customer]),
    type,
    from,
    step,
  ];
  // One INSERT … SELECT over a generated series, in chunks of a million rows.
  for (let done = 0; done < count; done += 1_000_000) {
    const last = Math.min(count, done + 1_000_000);
    const series = pg
      ? `generate_series(${done + 1}, ${last}) AS g(n)`
      : `(WITH RECURSIVE s(n) AS (SELECT ${done + 1} UNION ALL SELECT n + 1 FROM s WHERE n < ${last}) SELECT n FROM s) AS g`;
    const at = pg
      ? `to_timestamp((?::bigint + n::bigint * ?::bigint) / 1000.0)`
      : `strftime('%Y-%m-%d %H:%M:%f', (? + n * ?) / 1000.0, 'unixepoch')`;
    const data = pg
      ? `json_build_object('v', ((n % 1000) || '.123456789012'))`
      : `json_object('v', ((n % 1000) || '.123456789012'))`;
    await sql.run(
      `INSERT INTO usage_events (id, organization_id, livemode, idempotency_key, customer_id, type, "timestamp", data, created_at) ` +
        `SELECT '${prefix}' || n, ?, ${pg ? 'true' : '1'}, '${prefix}' || n, ${who}, ?, ${at}, ${data}, ${pg ? 'now()' : "'2026-01-01 00:00:00.000'"} FROM ${series}`,
      params,
    );
  }
}
