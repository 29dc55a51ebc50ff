import { DataSource, EntityManager } from 'typeorm';
import { Database } from './database';
import { LeaseJob, LeasePoller, claimLock } from './lease-poller';

/** A table of due rows in memory; a transaction runs its work alone, as on SQLite. */
class Rows {
  readonly due = new Map<string, number>();
  readonly done: string[] = [];
  claims = 0;

  add(id: string, at = Date.now()): void {
    this.due.set(id, at);
  }

  claim(now: Date, limit: number, leaseUntil: Date): string[] {
    this.claims++;
    const ids = [...this.due]
      .filter(([, at]) => at <= now.getTime())
      .sort((a, b) => a[1] - b[1])
      .slice(0, limit)
      .map(([id]) => id);
    for (const id of ids) this.due.set(id, leaseUntil.getTime());
    return ids;
  }

  finish(id: string): void {
    if (this.due.delete(id)) this.done.push(id);
  }
}

const db = {
  transaction: <T>(work: (m: EntityManager) => Promise<T>) => work({} as EntityManager),
} as unknown as Database;

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(condition()).toBe(true);
}

function job(rows: Rows, overrides: Partial<LeaseJob<string>> = {}): LeaseJob<string> {
  return {
    name: 'test',
    intervalMs: 60_000,
    concurrency: 4,
    leaseMs: 60_000,
    claim: (_m, now, limit, leaseUntil) => Promise.resolve(rows.claim(now, limit, leaseUntil)),
    run: (id) => {
      rows.finish(id);
      return Promise.resolve();
    },
    ...overrides,
  };
}

describe('LeasePoller', () => {
  let poller: LeasePoller;
  beforeEach(() => (poller = new LeasePoller(db)));
  afterEach(() => poller.onModuleDestroy());

  it('runs what is due once the application has started', async () => {
    const rows = new Rows();
    rows.add('a');
    rows.add('b');
    rows.add('later', Date.now() + 3_600_000);
    poller.register(job(rows));
    poller.onApplicationBootstrap();
    await until(() => rows.done.length === 2);
    expect(rows.done.sort()).toEqual(['a', 'b']);
    expect(rows.due.has('later')).toBe(true);
  });

  it('drains a backlog without waiting for the interval, never over its concurrency', async () => {
    const rows = new Rows();
    for (let i = 0; i < 50; i++) rows.add(`r${i}`);
    let inFlight = 0;
    let most = 0;
    poller.register(
      job(rows, {
        concurrency: 3,
        run: async (id) => {
          most = Math.max(most, ++inFlight);
          await new Promise((resolve) => setTimeout(resolve, 1));
          inFlight--;
          rows.finish(id);
        },
      }),
    );
    poller.onApplicationBootstrap();
    await until(() => rows.done.length === 50);
    expect(most).toBeLessThanOrEqual(3);
  });

  it('polls at once when woken', async () => {
    const rows = new Rows();
    const handle = poller.register(job(rows));
    poller.onApplicationBootstrap();
    await until(() => rows.claims === 1);
    rows.add('new');
    handle.wake();
    await until(() => rows.done.includes('new'));
  });

  it('polls again as an item ends after a claim that its own limits left empty', async () => {
    const rows = new Rows();
    rows.add('a');
    rows.add('b', Date.now() + 1);
    let polls = 0;
    let held = false;
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const handle = poller.register(
      job(rows, {
        // One at a time, as an endpoint's concurrency holds back its deliveries.
        claim: (_m, now, _limit, leaseUntil) => {
          polls++;
          return Promise.resolve(held ? [] : rows.claim(now, 1, leaseUntil));
        },
        run: async (id) => {
          held = true;
          if (id === 'a') await first;
          held = false;
          rows.finish(id);
        },
      }),
    );
    poller.onApplicationBootstrap();
    await until(() => polls === 1);
    handle.wake(); // 'a' is in flight: this claim takes nothing
    await until(() => polls === 2);
    release();
    await until(() => rows.done.length === 2);
  });

  it('runs an item again once the lease of a failed run has ended', async () => {
    const rows = new Rows();
    rows.add('flaky');
    let attempts = 0;
    poller.register(
      job(rows, {
        intervalMs: 10,
        leaseMs: 20,
        run: (id) => {
          if (++attempts === 1) return Promise.reject(new Error('crashed'));
          rows.finish(id);
          return Promise.resolve();
        },
      }),
    );
    poller.onApplicationBootstrap();
    await until(() => rows.done.includes('flaky'));
    expect(attempts).toBe(2);
  });

  it('waits for the work in flight when the module is destroyed, and polls no more', async () => {
    const rows = new Rows();
    rows.add('slow');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    poller.register(
      job(rows, {
        intervalMs: 5,
        run: async (id) => {
          await released;
          rows.finish(id);
        },
      }),
    );
    poller.onApplicationBootstrap();
    await until(() => rows.claims >= 1);
    const stopped = poller.onModuleDestroy();
    setTimeout(release, 20);
    await stopped;
    expect(rows.done).toEqual(['slow']);
    const claims = rows.claims;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(rows.claims).toBe(claims);
  });
});

describe('claimLock', () => {
  const select = (type: 'postgres' | 'better-sqlite3') =>
    claimLock(
      new DataSource({ type, database: ':memory:' })
        .createQueryBuilder()
        .select('t.id')
        .from('t', 't'),
    ).getQuery();

  it('skips the rows another claim holds on PostgreSQL', () => {
    expect(select('postgres')).toMatch(/FOR UPDATE SKIP LOCKED$/);
  });

  it('adds nothing on SQLite, whose transactions hold the single write lock', () => {
    expect(select('better-sqlite3')).not.toMatch(/FOR UPDATE/);
  });
});
