import Sqlite from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { parseDatabaseUrl } from '../../src/config/app-config';
import { dataSourceOptions } from '../../src/database/data-source-options';

export type Dialect = 'sqlite' | 'postgres';

/** Where fresh PostgreSQL databases are created and dropped (as test/helpers/test-database.ts). */
export const ADMIN_URL =
  process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A column of a bulk insert: its name and, for PostgreSQL, the array type to cast to. */
export interface Column {
  name: string;
  pg: 'varchar' | 'int' | 'boolean' | 'timestamptz' | 'jsonb' | 'text';
}

/**
 * The little SQL the benchmark needs to seed and inspect a database, straight on the driver
 * (better-sqlite3 or pg), never through the service. Values: strings, numbers, null, Date
 * (stored as each dialect's TIMESTAMP column expects) and plain objects (JSON).
 */
export interface SqlClient {
  readonly dialect: Dialect;
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<void>;
  /** Inserts many rows fast: one transaction, batched statements. */
  insertRows(table: string, columns: Column[], rows: unknown[][]): Promise<void>;
  close(): Promise<void>;
}

function sqliteValue(value: unknown): unknown {
  // TypeORM's text form of a `datetime` column on SQLite: UTC, `YYYY-MM-DD HH:mm:ss.SSS`.
  if (value instanceof Date) return value.toISOString().replace('T', ' ').replace('Z', '');
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value;
}

function pgValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value;
}

/** `?` placeholders (SQLite) become `$1, $2...` on PostgreSQL. */
function numbered(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

class SqliteClient implements SqlClient {
  readonly dialect = 'sqlite';
  private readonly db: Sqlite.Database;

  constructor(path: string) {
    this.db = new Sqlite(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
  }

  all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return Promise.resolve(this.db.prepare(sql).all(...params.map(sqliteValue)) as T[]);
  }

  run(sql: string, params: unknown[] = []): Promise<void> {
    this.db.prepare(sql).run(...params.map(sqliteValue));
    return Promise.resolve();
  }

  insertRows(table: string, columns: Column[], rows: unknown[][]): Promise<void> {
    const names = columns.map((c) => `"${c.name}"`).join(', ');
    const insert = this.db.prepare(
      `INSERT INTO "${table}" (${names}) VALUES (${columns.map(() => '?').join(', ')})`,
    );
    this.db.transaction(() => {
      for (const row of rows) insert.run(...row.map(sqliteValue));
    })();
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}

class PostgresClient implements SqlClient {
  readonly dialect = 'postgres';

  constructor(private readonly client: Client) {}

  static async connect(url: string): Promise<PostgresClient> {
    const client = new Client({ connectionString: url });
    await client.connect();
    return new PostgresClient(client);
  }

  async all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const result = await this.client.query(numbered(sql), params.map(pgValue));
    return result.rows as T[];
  }

  async run(sql: string, params: unknown[] = []): Promise<void> {
    await this.client.query(numbered(sql), params.map(pgValue));
  }

  /** One array parameter per column through unnest(): thousands of rows per statement. */
  async insertRows(table: string, columns: Column[], rows: unknown[][]): Promise<void> {
    const names = columns.map((c) => `"${c.name}"`).join(', ');
    const arrays = columns.map((c, i) => `$${i + 1}::${c.pg}[]`).join(', ');
    const sql = `INSERT INTO "${table}" (${names}) SELECT * FROM unnest(${arrays})`;
    const batch = 20_000;
    await this.client.query('BEGIN');
    try {
      for (let start = 0; start < rows.length; start += batch) {
        const slice = rows.slice(start, start + batch);
        const params = columns.map((_, i) => slice.map((row) => pgValue(row[i])));
        await this.client.query(sql, params);
      }
      await this.client.query('COMMIT');
    } catch (err) {
      await this.client.query('ROLLBACK');
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** A database of the benchmark's own, with the service's migrations applied. */
export interface BenchDatabase {
  dialect: Dialect;
  /** DATABASE_URL for the service and the baseline. */
  url: string;
  connect(): Promise<SqlClient>;
  drop(): Promise<void>;
}

/** Builds the schema with the service's own migrations (no entities needed for that). */
async function migrate(url: string): Promise<void> {
  const parsed = parseDatabaseUrl(url);
  if (typeof parsed === 'string') throw new Error(parsed);
  const dataSource = new DataSource({ ...dataSourceOptions(parsed), entities: [] });
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
}

export async function createBenchDatabase(dialect: Dialect): Promise<BenchDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));
    const path = join(dir, 'billing.sqlite');
    const url = `sqlite:${path}`;
    await migrate(url);
    return {
      dialect,
      url,
      connect: () => Promise.resolve(new SqliteClient(path)),
      drop: () => {
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    };
  }
  const name = `billing_bench_${randomBytes(6).toString('hex')}`;
  const admin = await PostgresClient.connect(ADMIN_URL);
  try {
    await admin.run(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.close();
  }
  const target = new URL(ADMIN_URL);
  target.pathname = `/${name}`;
  const url = target.toString();
  await migrate(url);
  return {
    dialect,
    url,
    connect: () => PostgresClient.connect(url),
    drop: async () => {
      const client = await PostgresClient.connect(ADMIN_URL);
      try {
        await client.run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.close();
      }
    },
  };
}
