import { createCatalog } from '../helpers/catalog-factory';
import { createPlan, createPrice } from '../helpers/plans-factory';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';

/**
 * A plan write looks its listed prices and their metrics up by id, whatever else the
 * organization holds: every statement on `prices` or `billable_metrics` that names ids
 * (`"id" IN (...)`) searches the table's primary key. With the organization and mode in the
 * WHERE clause, SQLite without statistics searched the organization's index instead and read
 * every free price it had (the create benchmark fell to a few requests per second).
 */
describe(`plan writes search prices by id (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant('Busy');
  });
  afterAll(() => t.close());

  async function explain(sql: string, params: unknown[]): Promise<string> {
    if (TEST_DIALECT === 'sqlite') {
      const rows: { detail: string }[] = await t.db.read((m) =>
        m.query(`EXPLAIN QUERY PLAN ${sql}`, params),
      );
      return rows.map((r) => r.detail).join(' | ');
    }
    // As list-indexes.e2e-spec.ts does: statistics, and no sequential scan of a small table.
    const runner = t.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query('SET LOCAL enable_seqscan = off');
      const rows: { 'QUERY PLAN': string }[] = await runner.query(`EXPLAIN ${sql}`, params);
      return rows.map((r) => r['QUERY PLAN']).join(' | ');
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }

  it('creates and changes a plan with statements that search prices and metrics by id', async () => {
    const { product, metrics } = await createCatalog(t, tenant.organizationId, 40);
    // Many free prices of the organization: what a search by organization would read.
    for (let i = 0; i < 30; i++) await createPrice(t, tenant, metrics[i % 3].id);
    const listed = [];
    for (const metric of metrics) listed.push((await createPrice(t, tenant, metric.id)).id);

    if (TEST_DIALECT === 'postgres') await t.dataSource.query('VACUUM ANALYZE');
    const spy = jest.spyOn(t.dataSource.logger, 'logQuery');
    let captured: { sql: string; params: unknown[] }[];
    try {
      const plan = await createPlan(t, tenant, product.id, { prices: listed.slice(0, 2) });
      await t
        .http()
        .patch(`/v0/plans/${plan.id}`)
        .set(tenant.auth)
        .send({ prices: [listed[2], listed[0]] })
        .expect(200);
      captured = spy.mock.calls.map(([sql, params]) => ({ sql, params: params ?? [] }));
    } finally {
      spy.mockRestore();
    }
    // Freeing and reordering name the plan too (`"plan_id" = ?`): its index, a plan's prices, is
    // as good; the statements that name ids alone must search by id.
    const byIds = captured.filter(
      ({ sql }) =>
        /\b(FROM|UPDATE) "(prices|billable_metrics)"[^]*WHERE "id" IN \(/.test(sql) &&
        !/"plan_id" = /.test(sql),
    );
    expect(byIds.length).toBeGreaterThanOrEqual(3);
    const problems: string[] = [];
    for (const { sql, params } of byIds) {
      const plan = await explain(sql, params);
      const table = /"(prices|billable_metrics)"/.exec(sql)![1];
      const primary =
        TEST_DIALECT === 'sqlite' ? `sqlite_autoindex_${table}_1 (id=?)` : `${table}_pkey`;
      // PostgreSQL answers the metrics' four columns from a covering index of a small table
      // without visiting it (an Index Only Scan); a price needs its row, and its key.
      const coveredOnPostgres =
        TEST_DIALECT === 'postgres' && table === 'billable_metrics' && /Index Only Scan/.test(plan);
      if (!plan.includes(primary) && !coveredOnPostgres) problems.push(`${sql}\n  ${plan}`);
    }
    expect(problems).toEqual([]);
  });
});

/**
 * Every create and delete of a plan writes one slot of its product's kept count (`plan_counts`),
 * a row that the other writes of that product want too: on PostgreSQL its lock is held from that
 * statement to the commit. So it is the transaction's last statement, after the events and the
 * stored idempotent answer (`db.atLast`), and the lock is held for one round trip only.
 */
describe(`a plan's kept count is written last (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant('Counted');
  });
  afterAll(() => t.close());

  /** The statements `send` makes, in order. */
  async function statements(send: () => Promise<unknown>): Promise<string[]> {
    const spy = jest.spyOn(t.dataSource.logger, 'logQuery');
    try {
      await send();
      return spy.mock.calls.map(([sql]) => sql);
    } finally {
      spy.mockRestore();
    }
  }

  it('after the events and the idempotent answer, right before the commit', async () => {
    const { product, metrics } = await createCatalog(t, tenant.organizationId, 1);
    const price = await createPrice(t, tenant, metrics[0].id);
    let planId = '';
    const created = await statements(async () => {
      const res = await t
        .http()
        .post('/v0/plans')
        .set({ ...tenant.auth, 'Idempotency-Key': 'count-last-create' })
        .send({
          name: 'Pro',
          productId: product.id,
          billingInterval: 'monthly',
          prices: [price.id],
        })
        .expect(201);
      planId = res.body.id;
    });
    const deleted = await statements(() =>
      t
        .http()
        .delete(`/v0/plans/${planId}`)
        .set({ ...tenant.auth, 'Idempotency-Key': 'count-last-delete' })
        .expect(200),
    );

    for (const [write, sql, counts] of [
      ['create', created, 1],
      ['delete', deleted, 2],
    ] as const) {
      const first = sql.findIndex((s) => /^INSERT INTO "plan_counts"/.test(s));
      expect({ write, first }).not.toEqual({ write, first: -1 });
      const last = first + counts - 1;
      for (let i = first; i <= last; i++) expect(sql[i]).toMatch(/^INSERT INTO "plan_counts"/);
      expect(sql[last + 1]).toBe('COMMIT');
      // The answer stored in the write's transaction comes right before the count, the events
      // before it.
      expect(sql[first - 1]).toMatch(/^UPDATE "idempotency_records"/);
      const events = sql.findIndex((s) => /^(WITH "inserted" AS \()?INSERT INTO "events"/.test(s));
      expect({ write, events: events >= 0 && events < first }).toEqual({ write, events: true });
    }
  });

  it("reads the endpoints a write's events may go to in the events' own statement on PostgreSQL", async () => {
    const { product } = await createCatalog(t, tenant.organizationId, 1);
    const sql = await statements(() => createPlan(t, tenant, product.id));
    const inserts = sql.filter((s) => /INSERT INTO "events"/.test(s));
    const reads = sql.filter((s) => /FROM "webhook_endpoints"/.test(s));
    expect(inserts).toHaveLength(1);
    if (TEST_DIALECT === 'postgres') {
      // One round trip: the INSERT is a WITH clause of the endpoints' SELECT.
      expect(inserts[0]).toMatch(
        /^WITH "inserted" AS \(INSERT INTO "events" .*\) SELECT "id", "enabled_events" FROM "webhook_endpoints"/,
      );
      expect(reads).toEqual(inserts);
    } else {
      expect(inserts[0]).toMatch(/^INSERT INTO "events"/);
      expect(reads).toHaveLength(1);
      expect(sql.indexOf(reads[0])).toBeGreaterThan(sql.indexOf(inserts[0]));
    }
  });
});
