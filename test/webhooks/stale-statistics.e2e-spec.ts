import { EntityManager } from 'typeorm';
import { WebhookDeliveriesRepository } from '../../src/webhooks/webhook-deliveries.repository';
import { createTwoModeTenant } from '../helpers/modes';
import { Captured, captureSql, pgNodes, postgresPlan } from '../helpers/query-plans';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { WebhookReceiver, eventually, startReceiver } from '../helpers/webhook-receiver';
import { QUICK_DELIVERY, createEndpoint, emit } from './support';

/**
 * The dispatcher's claim is planned the same however stale the database's statistics are. After
 * a quiet spell its last ANALYZE saw no delivery due; then a burst queues thousands. Planned from
 * those statistics (as PostgreSQL's autovacuum leaves them until it analyzes again, and as they
 * stay where it is off), the read of due deliveries once went through the index of an endpoint's
 * pending deliveries and sorted every due row, and the take of the chosen rows scanned them all
 * for the ids instead of finding each by its primary key: each claim cost in proportion to the
 * backlog (25 ms at 100,000 due, most of the fan-out benchmark's database time; see
 * docs/benchmarks.md). The plans are checked here as the database makes them, nothing
 * discouraged.
 */
describe(`the dispatcher's claim with statistics from before a burst (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let repository: WebhookDeliveriesRepository;
  const BURST = 600;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_DISPATCHER: 'off', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    repository = t.app.get(WebhookDeliveriesRepository);
    const acme = await createTwoModeTenant(t, 'Acme');
    await createEndpoint(t, acme.live, 'http://127.0.0.1:9/a', ['*']);
    await createEndpoint(t, acme.live, 'http://127.0.0.1:9/b', ['*']);
    // A history of delivered events, analyzed while nothing was due.
    for (let i = 0; i < 300; i++) await emit(t, acme, true);
    await t.dataSource.query(
      `UPDATE "webhook_deliveries" SET "status" = 'succeeded', "next_attempt_at" = NULL`,
    );
    await t.dataSource.query('ANALYZE');
    // The burst, not analyzed.
    for (let i = 0; i < BURST; i++) await emit(t, acme, true);
  });
  afterAll(() => t.close());

  /**
   * Each step of the plan the dispatcher's claim gets (Database.indexSearchesOnly first, as
   * postgresPlan plans): the index searched, or what else the step does.
   */
  async function steps(query: Captured): Promise<string[]> {
    if (TEST_DIALECT === 'sqlite') {
      const rows: { detail: string }[] = await t.db.read((m) =>
        m.query(`EXPLAIN QUERY PLAN ${query.sql}`, query.params),
      );
      return rows.map((r) => r.detail);
    }
    return pgNodes(await postgresPlan(t, query))
      .filter((n) => n['Index Name'] || /^(Seq Scan|Sort|Incremental Sort)$/.test(n['Node Type']))
      .map((n) => [n['Node Type'], n['Index Name']].filter(Boolean).join(' '));
  }

  async function claimQueries(): Promise<{ read: Captured; take: Captured; taken: number }> {
    let taken = 0;
    const queries = await captureSql(
      t,
      () =>
        t.db
          .transaction(async (m) => {
            const now = new Date();
            const due = await repository.dueCandidates(m, now, 500, []);
            expect(due).toHaveLength(500);
            const until = new Date(now.getTime() + 60_000);
            taken = (
              await repository.take(
                m,
                due.map((d) => d.id),
                now,
                until,
                'plan',
              )
            ).length;
            throw new Error('rolled back');
          })
          .catch((err: Error) => expect(err.message).toBe('rolled back')),
      (sql) => /^\s*(SELECT|UPDATE)\b.*"webhook_deliveries"/is.test(sql),
    );
    expect(queries).toHaveLength(2);
    return { read: queries[0], take: queries[1], taken };
  }

  it('reads the due deliveries oldest first from their index, with no sort', async () => {
    const { read, taken } = await claimQueries();
    expect(taken).toBe(500);
    const plan = await steps(read);
    if (TEST_DIALECT === 'sqlite') {
      expect(plan).toEqual([
        expect.stringMatching(/^SEARCH webhook_deliveries USING INDEX ix_webhook_deliveries_due /),
      ]);
    } else {
      expect(plan).toEqual(['Index Scan ix_webhook_deliveries_due']);
    }
  });

  it('takes the chosen deliveries by their primary key', async () => {
    const { take } = await claimQueries();
    const plan = await steps(take);
    if (TEST_DIALECT === 'sqlite') {
      expect(plan).toEqual([
        expect.stringMatching(
          /^SEARCH webhook_deliveries USING INDEX sqlite_autoindex_webhook_deliveries_1 \(id=\?\)$/,
        ),
      ]);
    } else {
      const searched = plan.filter((step) => !/Index Scan webhook_deliveries_pkey$/.test(step));
      expect({ plan, searched }).toEqual({ plan, searched: [] });
    }
  });
});

/**
 * The plans above are the dispatcher's: each claim is planned that way. A record, whose
 * statements search primary keys only, does not pay the statement that sets it.
 */
describe(`the dispatcher's claims are planned as index searches (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp(QUICK_DELIVERY);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('sets the plan before every claim, and not for its records', async () => {
    const acme = await createTwoModeTenant(t, 'Acme');
    await createEndpoint(t, acme.live, receiver.url, ['product.created']);
    const deliveries = t.app.get(WebhookDeliveriesRepository);
    const planned = new Set<EntityManager>();
    const indexSearchesOnly = t.db.indexSearchesOnly.bind(t.db);
    const plan = jest.spyOn(t.db, 'indexSearchesOnly').mockImplementation(async (m) => {
      planned.add(m);
      await indexSearchesOnly(m);
    });
    const names = ['dueCandidates', 'take', 'markSucceeded'] as const;
    const spies = names.map((name) => jest.spyOn(deliveries, name));
    try {
      for (let i = 0; i < 20; i++) await emit(t, acme, true);
      await receiver.waitFor(20);
      await eventually(
        () => Promise.resolve(spies[2].mock.calls.length),
        (n) => n > 0,
      );
      const calls = names.map((name, i) => {
        const managers = spies[i].mock.calls.map(([m]) => m);
        return {
          name,
          made: managers.length > 0,
          planned: managers.every((m) => planned.has(m)),
        };
      });
      expect(calls).toEqual([
        { name: 'dueCandidates', made: true, planned: true },
        { name: 'take', made: true, planned: true },
        { name: 'markSucceeded', made: true, planned: false },
      ]);
    } finally {
      plan.mockRestore();
      for (const spy of spies) spy.mockRestore();
    }
  });
});
