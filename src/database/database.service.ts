import { Injectable } from '@nestjs/common';
import { Mutex } from 'async-mutex';
import { DataSource, EntityManager, EntityTarget, ObjectLiteral, QueryResult } from 'typeorm';
import { EntityTable } from './entity-table';

const RETRYABLE_POSTGRES = new Set(['40001', '40P01']); // serialization failure, deadlock

function pgCode(err: unknown): string | undefined {
  const e = err as { driverError?: { code?: unknown }; code?: unknown };
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The one way services touch the database.
 *
 * SQLite has a single connection in TypeORM: two transactions (or a transaction and another
 * request's statement) would interleave on it, so on SQLite every unit of work runs alone, in
 * order, behind a mutex. The better-sqlite3 driver is synchronous, so this costs little.
 * PostgreSQL uses its pool; a transaction that loses a serialization race or a deadlock is retried.
 */
@Injectable()
export class Database {
  private readonly sqliteLock?: Mutex;
  private readonly postgresText = new Map<string, string>();
  private readonly tables = new Map<EntityTarget<ObjectLiteral>, EntityTable<ObjectLiteral>>();

  constructor(readonly dataSource: DataSource) {
    if (dataSource.options.type === 'better-sqlite3') this.sqliteLock = new Mutex();
  }

  get isPostgres(): boolean {
    return this.dataSource.options.type === 'postgres';
  }

  /**
   * The lock option for a read-modify-write inside `transaction`: SELECT ... FOR UPDATE on
   * PostgreSQL, so concurrent writers of one row queue up; nothing on SQLite, whose writes are
   * already serialized. Use as `manager.findOne(Entity, { where, lock: db.rowLock })`.
   */
  get rowLock(): { mode: 'pessimistic_write' } | undefined {
    return this.isPostgres ? { mode: 'pessimistic_write' } : undefined;
  }

  /** Runs `work` in one transaction: everything it writes lands together or not at all. */
  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.sqliteLock) {
      return this.sqliteLock.runExclusive(() => this.dataSource.transaction(work));
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction(work);
      } catch (err) {
        const code = pgCode(err);
        if (attempt >= 3 || !code || !RETRYABLE_POSTGRES.has(code)) throw err;
      }
    }
  }

  /**
   * Runs read-only `work`; on SQLite it waits for writes in flight so it never sees half of one.
   * On PostgreSQL its statements share one pooled connection (not one each).
   */
  async read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.sqliteLock) {
      return this.sqliteLock.runExclusive(() => work(this.dataSource.manager));
    }
    const runner = this.dataSource.createQueryRunner();
    try {
      return await work(runner.manager);
    } finally {
      await runner.release();
    }
  }

  /** The table of `entity`, for hand-written SQL (see EntityTable). */
  table<T extends ObjectLiteral>(entity: EntityTarget<T>): EntityTable<T> {
    let table = this.tables.get(entity);
    if (!table) {
      table = new EntityTable(this.dataSource, entity);
      this.tables.set(entity, table);
    }
    return table as EntityTable<T>;
  }

  /** Runs a SELECT written with `?` placeholders on `manager`'s connection; returns its rows. */
  rows<R = Record<string, unknown>>(
    manager: EntityManager,
    text: string,
    params: unknown[],
  ): Promise<R[]> {
    return manager.query<R[]>(this.sql(text), params);
  }

  /**
   * Runs an INSERT, UPDATE or DELETE written with `?` placeholders inside `manager`'s
   * transaction; returns how many rows it changed.
   */
  async execute(manager: EntityManager, text: string, params: unknown[]): Promise<number> {
    if (!manager.queryRunner) throw new Error('Database.execute runs inside db.transaction');
    const result: QueryResult = await manager.queryRunner.query(this.sql(text), params, true);
    return result.affected ?? 0;
  }

  /**
   * SQL written with `?` placeholders, in this database's dialect: `$1, $2, ...` on PostgreSQL.
   * Converted once per text; hot paths send constant SQL text, so the drivers' statement caches
   * (better-sqlite3's prepared statements) keep working.
   */
  sql(text: string): string {
    if (!this.isPostgres) return text;
    let converted = this.postgresText.get(text);
    if (converted === undefined) {
      let n = 0;
      converted = text.replace(/\?/g, () => `$${++n}`);
      this.postgresText.set(text, converted);
    }
    return converted;
  }

  /** True when the database answers a trivial query within `timeoutMs`. */
  async ping(timeoutMs = 2000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('database ping timed out')), timeoutMs);
      });
      await Promise.race([this.dataSource.query('SELECT 1'), timeout]);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}
