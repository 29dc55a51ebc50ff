import { Injectable } from '@nestjs/common';
import { Mutex } from 'async-mutex';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { driverCode, isDatabaseUnavailable } from './database-errors';
import type { DatabaseKind } from '../config/app-config';
import type { CommitHook } from './commit-hook';
import { DateUtils } from 'typeorm/util/DateUtils';

const RETRYABLE_POSTGRES = new Set(['40001', '40P01']); // serialization failure, deadlock

const INDEX_SEARCHES_ONLY =
  "SELECT set_config('enable_seqscan', 'off', true), set_config('enable_sort', 'off', true), " +
  "set_config('enable_incremental_sort', 'off', true)";

const SNAPSHOT_BEGIN = 'START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY';

/**
 * How long a transaction on SQLite waits for the write lock that another connection holds (a
 * second process, the command line, a backup) before it gives up and the request answers 503.
 */
export const SQLITE_LOCK_WAIT_MS = 5000;

/** What a unit of work was (`db.transaction` or `db.read`) and how long it took, in seconds. */
export type UnitOfWorkTimer = (kind: 'transaction' | 'read', seconds: number) => void;

/** How a unit of work waits for the database. */
export interface UnitOptions {
  /**
   * A unit with `first` does not wait behind the requests' units: the webhook jobs' claims and
   * records take it (webhook-delivery.job.ts, webhook-fan-out.ts), so that delivery keeps pace
   * with the writes however many requests wait. SQLite runs one unit of work at a time: a unit
   * with `first` goes before the waiting units without it. PostgreSQL hands pooled connections
   * out first come, first served: a unit with `first` takes a connection of a small pool of its
   * own (DATABASE_DISPATCHER_POOL_SIZE) instead of queueing behind every request for one of
   * DATABASE_POOL_SIZE. Without it, under 50 concurrent creates, the oldest undelivered event
   * reached 5-6 s; with it, 0.3-0.4 s (docs/benchmarks.md).
   */
  first?: boolean;
}

/** A unit of work that does not wait behind the requests' units (see UnitOptions). */
export const FIRST: UnitOptions = { first: true };

/**
 * The one way services touch the database.
 *
 * SQLite has a single connection in TypeORM: two transactions (or a transaction and another
 * request's statement) would interleave on it, so on SQLite every unit of work runs alone, in
 * order, behind a mutex. The better-sqlite3 driver is synchronous, so this costs little.
 * PostgreSQL uses its pool (and a second one for the units that go first, see UnitOptions); a
 * transaction that loses a serialization race or a deadlock is retried.
 */
@Injectable()
export class Database {
  private readonly sqliteLock?: Mutex;
  private readonly postgresText = new Map<string, string>();

  /** True on PostgreSQL: the configured dialect (AppConfig.database.kind), read once. */
  readonly isPostgres: boolean;

  /** Told how long each unit of work took (metrics), when someone listens. */
  private timing?: UnitOfWorkTimer;

  /**
   * `firstLane`, on PostgreSQL: the data source (a pool of its own on the same database) of the
   * units with `first` (see UnitOptions); without it they share `dataSource`'s pool.
   */
  constructor(
    readonly dataSource: DataSource,
    readonly dialect: DatabaseKind,
    private readonly firstLane?: DataSource,
  ) {
    this.isPostgres = dialect === 'postgres';
    if (!this.isPostgres) this.sqliteLock = new Mutex();
  }

  /** Closes the pool of the units with `first`, if there is one (`dataSource` is TypeORM's). */
  async close(): Promise<void> {
    if (this.firstLane?.isInitialized) await this.firstLane.destroy();
  }

  /**
   * The lock option for a read-modify-write inside `transaction`: SELECT ... FOR UPDATE on
   * PostgreSQL, so concurrent writers of one row queue up; nothing on SQLite, whose writes are
   * already serialized. Use as `manager.findOne(Entity, { where, lock: db.rowLock })`.
   */
  get rowLock(): { mode: 'pessimistic_write' } | undefined {
    return this.isPostgres ? { mode: 'pessimistic_write' } : undefined;
  }

  /**
   * Plans the rest of `manager`'s transaction as index searches, whatever the statistics say:
   * on PostgreSQL, sequential scans and sorts are discouraged for it (SET LOCAL of
   * enable_seqscan, enable_sort and enable_incremental_sort, in one statement); nothing on
   * SQLite. For work whose statements are all index searches by design, on a table whose
   * statistics lag its bursts (the webhook delivery claim, test/webhooks/claim-index.e2e-spec.ts).
   */
  async indexSearchesOnly(manager: EntityManager): Promise<void> {
    if (!this.isPostgres) return;
    await manager.query(INDEX_SEARCHES_ONLY);
  }

  /**
   * Runs `work` in one transaction: everything it writes lands together or not at all. An armed
   * `hook` (the request's Idempotency-Key answer, see commit-hook.ts) runs after it, inside the
   * same transaction; the hook is settled once that commits. `options.first`: see UnitOptions.
   */
  transaction<T>(
    work: (manager: EntityManager) => Promise<T>,
    hook?: CommitHook,
    options: UnitOptions = {},
  ): Promise<T> {
    const armed = hook?.armed ? hook : undefined;
    const unit = async (manager: EntityManager) => {
      const result = await work(manager);
      if (armed) await armed.run(manager, result);
      return result;
    };
    return this.timed('transaction', async () => {
      const result = this.sqliteLock
        ? await this.sqliteTransaction(unit, options.first ? 1 : 0)
        : await this.postgresTransaction(unit, options.first ? this.firstLane : undefined);
      armed?.settle();
      return result;
    });
  }

  /**
   * Reports the duration of every unit of work, in seconds, waiting for the SQLite lock or a
   * pooled connection included (the metrics' database time). One listener; none by default.
   */
  timeUnitsOfWork(timer: UnitOfWorkTimer): void {
    this.timing = timer;
  }

  private async timed<T>(kind: 'transaction' | 'read', unit: () => Promise<T>): Promise<T> {
    const timing = this.timing;
    const started = performance.now();
    try {
      return await unit();
    } finally {
      timing?.(kind, (performance.now() - started) / 1000);
    }
  }

  private async postgresTransaction<T>(
    work: (manager: EntityManager) => Promise<T>,
    lane = this.dataSource,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.postgresAttempt(work, lane);
      } catch (err) {
        const code = driverCode(err);
        if (attempt >= 3 || !code || !RETRYABLE_POSTGRES.has(code)) throw err;
        // A random pause, so that the transactions that collided do not collide again.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
      }
    }
  }

  /**
   * One PostgreSQL transaction on a connection of its own. When the connection itself failed (a
   * timeout, a network cut), no ROLLBACK is sent (it would wait out another timeout before the
   * client hears 503) and the connection is handed back as broken, so the pool discards it; the
   * server rolls back what it had when the connection goes.
   */
  private async postgresAttempt<T>(
    work: (manager: EntityManager) => Promise<T>,
    lane: DataSource,
    begin?: string,
  ): Promise<T> {
    const runner = lane.createQueryRunner();
    let broken: Error | undefined;
    try {
      if (begin) {
        // One statement, where TypeORM's startTransaction(level) sends two.
        await runner.query(begin);
        Object.assign(runner, { isTransactionActive: true, transactionDepth: 1 });
      } else {
        await runner.startTransaction();
      }
      const result = await work(runner.manager);
      await runner.commitTransaction();
      return result;
    } catch (err) {
      if (isDatabaseUnavailable(err)) broken = err instanceof Error ? err : new Error(String(err));
      else if (runner.isTransactionActive)
        await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      if (broken) {
        // TypeORM's PostgreSQL runner passes this error to the pool, which then drops the client.
        const postgres = runner as unknown as {
          releasePostgresConnection(err: Error): Promise<void>;
        };
        await postgres.releasePostgresConnection(broken);
      } else {
        await runner.release();
      }
    }
  }

  /**
   * SQLite: BEGIN IMMEDIATE takes the write lock before the first read, so that a transaction
   * never reads a snapshot that another connection (a second process, the command line) changes
   * before it writes, which SQLite refuses with SQLITE_BUSY_SNAPSHOT even after waiting. While
   * another connection holds the lock, the transaction steps out of the mutex and tries again
   * after a short pause, so reads and the event loop carry on (busy_timeout is short), until
   * SQLITE_LOCK_WAIT_MS after it was asked for; then SQLITE_BUSY goes up and the request
   * answers 503.
   */
  private async sqliteTransaction<T>(
    work: (manager: EntityManager) => Promise<T>,
    priority: number,
  ): Promise<T> {
    const deadline = Date.now() + SQLITE_LOCK_WAIT_MS;
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      const outcome = await this.sqliteLock!.runExclusive(async () => {
        const runner = this.dataSource.createQueryRunner();
        try {
          await runner.query('BEGIN IMMEDIATE');
        } catch (err) {
          const busy = /^SQLITE_BUSY/.test(driverCode(err) ?? '');
          if (busy && Date.now() + pause < deadline) return undefined;
          throw err;
        }
        return { result: await this.sqliteUnit(runner, work) };
      }, priority);
      if (outcome) return outcome.result;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /**
   * Runs read-only `work`; on SQLite it waits for writes in flight so it never sees half of one.
   * On PostgreSQL each statement takes a pooled connection and gives it back; a connection that
   * failed (a timeout, a network cut) is discarded by the pool rather than handed on, which a
   * query runner held across statements would not do. Work of several statements that must
   * agree with one another takes `snapshot`.
   */
  read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const lock = this.sqliteLock;
    const manager = this.dataSource.manager;
    return this.timed('read', () =>
      lock ? lock.runExclusive(() => work(manager)) : work(manager),
    );
  }

  /**
   * Runs read-only `work` whose statements must agree with one another: a plan and its prices, a
   * page and its total. `read` runs each PostgreSQL statement on its own and sees what is
   * committed when that statement starts, so a write that commits between two of them shows
   * half of itself (a plan's old name with its new prices, a page of three with a total of
   * six). On PostgreSQL this runs `work` on one connection in one REPEATABLE READ, READ ONLY
   * transaction: every statement sees the state of the first (which cannot fail to serialize,
   * as it writes nothing). On SQLite, where this process's writes wait for it anyway, it is one
   * read transaction too, for the writes of other processes (the command line).
   */
  snapshot<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const lock = this.sqliteLock;
    return this.timed('read', () =>
      lock
        ? // A deferred transaction reads one snapshot of the database file from its first read.
          lock.runExclusive(async () => {
            const runner = this.dataSource.createQueryRunner();
            await runner.query('BEGIN');
            return this.sqliteUnit(runner, work);
          })
        : this.postgresAttempt(work, this.dataSource, SNAPSHOT_BEGIN),
    );
  }

  /**
   * The rest of a SQLite unit whose BEGIN `runner` has sent: `work`, then COMMIT (ROLLBACK when
   * it throws).
   */
  private async sqliteUnit<T>(
    runner: QueryRunner,
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<T> {
    // What TypeORM's own startTransaction() records, so that nothing in `work` opens another.
    Object.assign(runner, { isTransactionActive: true, transactionDepth: 1 });
    try {
      const result = await work(runner.manager);
      await runner.query('COMMIT');
      return result;
    } catch (err) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      Object.assign(runner, { isTransactionActive: false, transactionDepth: 0 });
      await runner.release();
    }
  }

  /** Runs a SELECT written with `?` placeholders on `manager`'s connection; returns its rows. */
  rows<R = Record<string, unknown>>(
    manager: EntityManager,
    text: string,
    params: unknown[],
  ): Promise<R[]> {
    return manager.query<R[]>(this.sql(text), this.params(params));
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

  /**
   * Parameters as the driver binds them: SQLite has no booleans (livemode is 1 or 0 there) and
   * stores timestamps as text.
   */
  private params(params: unknown[]): unknown[] {
    if (this.isPostgres) return params;
    return params.map((p) =>
      typeof p === 'boolean'
        ? Number(p)
        : p instanceof Date
          ? (DateUtils.mixedDateToUtcDatetimeString(p) as string)
          : p,
    );
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
