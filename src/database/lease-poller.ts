import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { Database, UnitOptions } from './database';

/** One kind of background work, as it registers with the LeasePoller. */
export interface LeaseJob<T> {
  /** Names the job in logs. */
  name: string;
  /**
   * Selects up to `limit` rows due at `now` and moves their lease to `leaseUntil`, inside `m`'s
   * transaction (the poller's). Select with `claimLock` so that two instances never claim one
   * row. Returns what `run` needs of each row.
   */
  claim(m: EntityManager, now: Date, limit: number, leaseUntil: Date): Promise<T[]>;
  /**
   * Does the work of one claimed item and records its outcome in one transaction of its own,
   * idempotently: a crash before that commit leaves the lease to expire, and the item is claimed
   * and run again. A throw is logged; the item waits for its lease to end.
   */
  run(item: T): Promise<void>;
  /** How often the job polls when nothing wakes it. */
  intervalMs: number;
  /** The most items of this job in flight at once in this process (and so the most one claim takes). */
  concurrency: number;
  /** How long a claim holds an item: longer than `run` takes, or another instance runs it too. */
  leaseMs: number;
  /** How the claim waits for the database (`FIRST`: not behind the requests, see UnitOptions). */
  unit?: UnitOptions;
  /** Called when the poller stops, before it waits for the items in flight: cut long work short. */
  stopping?(): void;
}

/** What `register` hands back. */
export interface LeaseJobHandle {
  /** Polls now (or right after the poll at work): for work this process just made due. */
  wake(): void;
}

/**
 * Locks the rows a claim selects: FOR UPDATE SKIP LOCKED on PostgreSQL, so that an instance
 * claiming at the same moment skips them and takes others instead of waiting; nothing on SQLite,
 * where every transaction holds the database's single write lock.
 */
export function claimLock<E extends ObjectLiteral>(
  qb: SelectQueryBuilder<E>,
): SelectQueryBuilder<E> {
  if (qb.connection.options.type !== 'postgres') return qb;
  return qb.setLock('pessimistic_write').setOnLocked('skip_locked');
}

/**
 * The one shape of background work: a row says what is due and when; the poller claims due rows
 * with a lease, runs each, and the job records its outcome in one transaction. A process that
 * dies leaves its leases to expire; any instance claims the rows again then.
 *
 * Each registered job polls every `intervalMs`, at `wake()`, and, after a claim that took
 * something or left items in flight (more may be due), again as soon as an item ends. A claim
 * takes at most the room left beside the job's items in flight (`concurrency`). Polls of one job
 * never overlap. Module destroy stops the polls and waits for the items in flight. The
 * verification worker (external-accounts/verification/verification.worker.ts) is the smallest job.
 */
@Injectable()
export class LeasePoller implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(LeasePoller.name);
  private readonly jobs: JobLoop<unknown>[] = [];
  private started = false;

  constructor(private readonly db: Database) {}

  /** Adds a job; it starts polling at application bootstrap (at once when registered later). */
  register<T>(job: LeaseJob<T>): LeaseJobHandle {
    const loop = new JobLoop(job, this.db, this.logger);
    this.jobs.push(loop);
    if (this.started) loop.start();
    return { wake: () => loop.wake() };
  }

  onApplicationBootstrap(): void {
    this.started = true;
    for (const loop of this.jobs) loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.started = false;
    await Promise.all(this.jobs.map((loop) => loop.stop()));
  }
}

/** The polls and the items in flight of one job. */
class JobLoop<T> {
  private running = false;
  private timer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  /** A wake or an ended item came during a poll: poll again right after it. */
  private again = false;
  /**
   * The last claim took something, or left items in flight: more may be due (beyond its room, or
   * held back by the job's own limits), so poll again as soon as an item ends.
   */
  private more = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly job: LeaseJob<T>,
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.job.stopping?.();
    await this.polling;
    await Promise.all(this.inFlight);
  }

  wake(): void {
    if (!this.running) return;
    if (this.polling) this.again = true;
    else this.schedule(0);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.poll(), delayMs);
    this.timer.unref();
  }

  private poll(): void {
    if (!this.running || this.polling) return;
    this.again = false;
    this.polling = this.claim()
      .catch((err: unknown) => {
        this.more = false;
        this.logger.warn({ err, job: this.job.name }, 'claim failed');
      })
      .finally(() => {
        this.polling = undefined;
        if (!this.running) return;
        this.schedule(this.again ? 0 : this.job.intervalMs);
      });
  }

  private async claim(): Promise<void> {
    const room = this.job.concurrency - this.inFlight.size;
    if (room <= 0) {
      this.more = true;
      return;
    }
    const now = new Date();
    const leaseUntil = new Date(now.getTime() + this.job.leaseMs);
    const items = await this.db.transaction(
      (m) => this.job.claim(m, now, room, leaseUntil),
      undefined,
      this.job.unit,
    );
    // With items in flight, an empty claim does not mean nothing is due: their ends free room
    // that the job's own limits held back, and rows that their records held (SKIP LOCKED).
    this.more = items.length > 0 || this.inFlight.size > 0;
    for (const item of items) this.runItem(item);
  }

  private runItem(item: T): void {
    const done: Promise<void> = this.job
      .run(item)
      .catch((err: unknown) =>
        this.logger.warn({ err, job: this.job.name }, 'run failed; retried when its lease ends'),
      )
      .finally(() => {
        this.inFlight.delete(done);
        if (this.more) this.wake();
      });
    this.inFlight.add(done);
  }
}
