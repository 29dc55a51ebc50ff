import { DataSource } from 'typeorm';
import { TestDatabase } from '../test-database';

/** Something that runs SQL: the app's own DataSource, or one opened on its database. */
export interface Sql {
  query(sql: string, params?: unknown[]): Promise<any[]>;
}

/** A DataSource of its own on a test database (no entities), for checks from outside the app. */
export async function openDatabase(database: TestDatabase): Promise<DataSource> {
  const ds = new DataSource(
    database.dialect === 'postgres'
      ? { type: 'postgres', url: database.url, extra: { max: 2 } }
      : { type: 'better-sqlite3', database: database.url.slice('sqlite:'.length), timeout: 10000 },
  );
  return ds.initialize();
}

/**
 * Each rule of docs/api.md that the stored data must satisfy, as a query that returns the rows that
 * break it. Portable SQL: the same text runs on SQLite and PostgreSQL.
 */
const RULES: { name: string; sql: string }[] = [
  {
    name: 'a price in a plan belongs to the plan’s organization and a metric of the plan’s product',
    sql: `SELECT p.id FROM prices p
          JOIN plans pl ON pl.id = p.plan_id
          JOIN billable_metrics bm ON bm.id = p.billable_metric_id
          WHERE pl.organization_id <> p.organization_id OR bm.product_id <> pl.product_id`,
  },
  {
    name: 'a price points at a plan that exists',
    sql: `SELECT p.id FROM prices p LEFT JOIN plans pl ON pl.id = p.plan_id
          WHERE p.plan_id IS NOT NULL AND pl.id IS NULL`,
  },
  {
    name: 'a live plan holds no deleted price',
    sql: `SELECT p.id FROM prices p JOIN plans pl ON pl.id = p.plan_id
          WHERE pl.deleted_at IS NULL AND p.deleted_at IS NOT NULL`,
  },
  {
    name: 'deleting a plan deletes its prices',
    sql: `SELECT p.id FROM prices p JOIN plans pl ON pl.id = p.plan_id
          WHERE pl.deleted_at IS NOT NULL AND p.deleted_at IS NULL`,
  },
  {
    name: 'a price has a position exactly when it is in a plan',
    sql: `SELECT id FROM prices
          WHERE (plan_id IS NULL AND plan_position IS NOT NULL)
             OR (plan_id IS NOT NULL AND plan_position IS NULL)`,
  },
  {
    name: 'the prices of a plan are at positions 0..n-1, each once',
    sql: `SELECT plan_id FROM prices WHERE plan_id IS NOT NULL GROUP BY plan_id
          HAVING COUNT(*) <> COUNT(DISTINCT plan_position)
              OR MIN(plan_position) <> 0 OR MAX(plan_position) <> COUNT(*) - 1`,
  },
  {
    name: 'a plan has at most one price per billable metric',
    sql: `SELECT plan_id FROM prices WHERE plan_id IS NOT NULL
          GROUP BY plan_id, billable_metric_id HAVING COUNT(*) > 1`,
  },
  {
    name: 'a billable metric belongs to the organization of its product',
    sql: `SELECT bm.id FROM billable_metrics bm JOIN products pr ON pr.id = bm.product_id
          WHERE pr.organization_id <> bm.organization_id`,
  },
  {
    name: 'a price belongs to the organization of its billable metric',
    sql: `SELECT p.id FROM prices p JOIN billable_metrics bm ON bm.id = p.billable_metric_id
          WHERE bm.organization_id <> p.organization_id`,
  },
  {
    name: 'a plan belongs to the organization of its product',
    sql: `SELECT pl.id FROM plans pl JOIN products pr ON pr.id = pl.product_id
          WHERE pr.organization_id <> pl.organization_id`,
  },
  {
    name: 'one live external account per organization and bank details',
    sql: `SELECT organization_id FROM external_bank_accounts WHERE deleted_at IS NULL
          GROUP BY organization_id, fingerprint HAVING COUNT(*) > 1`,
  },
  {
    name: 'an external account has a known status and a last4 of 2-4 characters',
    sql: `SELECT id FROM external_bank_accounts
          WHERE status NOT IN ('pending', 'verified', 'errored') OR LENGTH(last4) NOT BETWEEN 2 AND 4`,
  },
  {
    name: 'an idempotency record is in progress (locked) or complete (with its response)',
    sql: `SELECT id FROM idempotency_records
          WHERE NOT ((state = 'in_progress' AND locked_until IS NOT NULL)
                  OR (state = 'complete' AND response_status IS NOT NULL))`,
  },
  ...['products', 'billable_metrics', 'plans', 'prices', 'external_bank_accounts'].map((table) => ({
    name: `${table}: updatedAt is never before createdAt, deletedAt never before createdAt`,
    sql: `SELECT id FROM ${table} WHERE updated_at < created_at${
      table === 'products' || table === 'billable_metrics' ? '' : ' OR deleted_at < created_at'
    }`,
  })),
];

function parseJsonColumn(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

function isFlatMetadata(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  return (
    entries.length <= 50 &&
    entries.every(
      ([k, v]) =>
        k.length >= 1 &&
        k.length <= 40 &&
        (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'),
    )
  );
}

export interface InvariantReport {
  /** How many rules were evaluated (each over the whole database). */
  checks: number;
  violations: string[];
}

/** Evaluates every rule over the whole database; `violations` names each broken one with rows. */
export async function checkInvariants(sql: Sql): Promise<InvariantReport> {
  const violations: string[] = [];
  for (const rule of RULES) {
    const rows = await sql.query(rule.sql);
    if (rows.length > 0) {
      violations.push(`${rule.name}: ${JSON.stringify(rows.slice(0, 5))}`);
    }
  }
  let checks = RULES.length;
  for (const table of ['products', 'external_bank_accounts']) {
    checks += 1;
    const rows = await sql.query(`SELECT id, metadata FROM ${table}`);
    const bad = rows.filter((r) => !isFlatMetadata(parseJsonColumn(r.metadata)));
    if (bad.length > 0)
      violations.push(`${table}: metadata is not flat: ${JSON.stringify(bad[0])}`);
  }
  return { checks, violations };
}

/** Every row of every product table (idempotency records apart), to compare before and after. */
export async function snapshot(sql: Sql, withIdempotency = false): Promise<string> {
  const tables = [
    'organizations',
    'api_keys',
    'products',
    'billable_metrics',
    'plans',
    'prices',
    'external_bank_accounts',
    'customers',
    'test_clocks',
    'subscriptions',
    'usage_events',
    'invoices',
    'invoice_lines',
    ...(withIdempotency ? ['idempotency_records'] : []),
  ];
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await sql.query(`SELECT * FROM ${table} ORDER BY id`);
    parts.push(`${table}:${JSON.stringify(rows)}`);
  }
  return parts.join('\n');
}
