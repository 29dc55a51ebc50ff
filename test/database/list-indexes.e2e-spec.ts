import { ApiKeysService } from '../../src/auth/api-keys.service';
import { ExternalAccountsRepository } from '../../src/external-accounts/external-accounts.repository';
import { VerificationService } from '../../src/external-accounts/verification/verification.service';
import { createCatalog } from '../helpers/catalog-factory';
import { createPlan, createPrice } from '../helpers/plans-factory';
import { rechecksIndexedBoolean } from '../helpers/query-plans';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';
import { createAccount, decide, uniqueDigits } from '../helpers/external-accounts-factory';
import { createTwoModeTenant } from '../helpers/modes';

/**
 * Every list request (each filter alone, none, includeDeleted true and false where it exists)
 * sends SQL that an index answers: the SELECTs the service really sent are captured from
 * TypeORM's logger and explained with their own parameters.
 *
 * - No full scan: SQLite's plan has only `SEARCH ... USING [COVERING] INDEX`, PostgreSQL's no
 *   `Seq Scan` (with seq scans disabled, since a small test table would otherwise be read whole).
 * - No sort for a page (ORDER BY "created_at" DESC, "id" DESC): no `USE TEMP B-TREE FOR ORDER BY`
 *   on SQLite, no `Sort` or `Incremental Sort` node on PostgreSQL (with sorts disabled, so a Sort
 *   appears only when no index gives the order).
 * - No row read only to be dropped: every `"column" = ?` and `"column" IS NULL` of a page or a
 *   count is a condition of the index search or implied by a partial index's WHERE (SQLite), and
 *   no scan has a `Filter` (PostgreSQL). So another organization's rows, deleted rows in a live
 *   list, and rows of another status, currency or country are never read.
 *
 * Other SELECTs of a list (the prices of a page of plans, by plan_id IN (...)) must not scan
 * either. So do the lists that are not HTTP routes: the operator's queue of live accounts
 * waiting for verification (the command line), and the verification worker's claim of due
 * accounts (src/external-accounts/verification/). The filters and includeDeleted come from the services: src/plans/plans.service.ts
 * (listFilter), prices.service.ts, src/catalog/*.service.ts, external-accounts.service.ts.
 */

const LIST_TABLES = [
  'products',
  'billable_metrics',
  'prices',
  'plans',
  'external_bank_accounts',
  // The plans list's total, from the kept counts (src/plans/entities/plan-count.entity.ts).
  'plan_counts',
];

interface Captured {
  sql: string;
  params: unknown[];
}

interface Ids {
  organizationId: string;
  productId: string;
  metricId: string;
  planId: string;
}

type Variant = [path: string, build: (ids: Ids) => string];

/**
 * `base` alone and with each filter, each with includeDeleted unset, true and false. A page of one
 * is always full, so TypeORM's findAndCount sends its COUNT too (on a short first page it counts
 * the rows it got instead).
 */
function variants(base: string, filters: ((ids: Ids) => string)[], deleted: boolean): Variant[] {
  const queries: ((ids: Ids) => string)[] = [() => '', ...filters];
  const flags = deleted ? ['', 'includeDeleted=true', 'includeDeleted=false'] : [''];
  return queries.flatMap((query) =>
    flags.map((flag): Variant => {
      const build = (ids: Ids) =>
        `${base}?${['limit=1', query(ids), flag].filter((p) => p !== '').join('&')}`;
      const shown = build({
        organizationId: '<org>',
        productId: '<product>',
        metricId: '<metric>',
        planId: '<plan>',
      });
      return [shown, build];
    }),
  );
}

const REQUESTS: Variant[] = [
  ...variants('/v0/products', [(ids) => `merchantId=${ids.organizationId}`], false),
  ...variants('/v0/billableMetrics', [(ids) => `productId=${ids.productId}`], false),
  ...variants(
    '/v0/prices',
    [(ids) => `billableMetricId=${ids.metricId}`, (ids) => `planId=${ids.planId}`],
    true,
  ),
  ...variants(
    '/v0/plans',
    [(ids) => `productId=${ids.productId}`, (ids) => `merchantId=${ids.organizationId}`],
    true,
  ),
  ...variants(
    '/v0/externalAccounts',
    [() => 'status=verified', () => 'currency=USD', () => 'countryCode=US'],
    false,
  ),
];

function tableOf(sql: string): string | undefined {
  const table = /\bFROM "(\w+)"/i.exec(sql)?.[1];
  return table && LIST_TABLES.includes(table) ? table : undefined;
}

const isPage = (sql: string) =>
  /ORDER BY\s+("\w+"\.)?"(created_at|verification_due_at)" (DESC|ASC)/i.test(sql);
const isCount = (sql: string) => /\bCOUNT\(|FROM "plan_counts"/i.test(sql);

/** The columns the WHERE clause compares to a parameter or to NULL. */
function filterColumns(sql: string): string[] {
  const where = /\bWHERE\b(.*?)(\bORDER BY\b|\bLIMIT\b|$)/is.exec(sql)?.[1] ?? '';
  const columns = [...where.matchAll(/"(\w+)"\s*(?:=\s*(?:\?|\$\d+)|IS NULL)/gi)].map((m) => m[1]);
  return [...new Set(columns)];
}

/** What is wrong with SQLite's plan for `query`, or nothing. */
function sqliteProblems(
  query: Captured,
  details: string[],
  partialColumns: Map<string, string[]>,
): string[] {
  const problems: string[] = [];
  for (const detail of details) {
    if (/^SCAN /.test(detail)) problems.push(`full scan: ${detail}`);
    if (isPage(query.sql) && /TEMP B-TREE FOR .*ORDER BY/.test(detail)) {
      problems.push(`sorts the page: ${detail}`);
    }
  }
  const searches = details
    .map((d) => /^SEARCH \S+ USING (?:COVERING )?INDEX (\S+)(?: \((.*)\))?$/.exec(d))
    .filter((m): m is RegExpExecArray => m !== null);
  if (searches.length === 0) problems.push('no index search');
  if (isPage(query.sql) || isCount(query.sql)) {
    for (const [, index, constraints = ''] of searches) {
      const used = new Set([
        ...constraints.split(' AND ').map((c) => c.split(/[=<>]/)[0]),
        ...(partialColumns.get(index) ?? []),
      ]);
      const left = filterColumns(query.sql).filter((c) => !used.has(c));
      if (left.length > 0) {
        problems.push(
          `${index} does not answer ${left.join(', ')}: those rows are read and dropped`,
        );
      }
    }
  }
  return problems;
}

interface PgNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Filter?: string;
  'Sort Key'?: string[];
  Plans?: PgNode[];
}

function pgNodes(node: PgNode): PgNode[] {
  return [node, ...(node.Plans ?? []).flatMap(pgNodes)];
}

function pgPlanText(node: PgNode, depth = 0): string {
  const parts = [node['Node Type']];
  if (node['Index Name']) parts.push(`using ${node['Index Name']}`);
  if (node['Index Cond']) parts.push(`cond ${node['Index Cond']}`);
  if (node['Recheck Cond']) parts.push(`recheck ${node['Recheck Cond']}`);
  if (node.Filter) parts.push(`filter ${node.Filter}`);
  if (node['Sort Key']) parts.push(`key ${node['Sort Key'].join(', ')}`);
  return [
    `${'  '.repeat(depth)}${parts.join(' ')}`,
    ...(node.Plans ?? []).map((p) => pgPlanText(p, depth + 1)),
  ].join('\n');
}

/** What is wrong with PostgreSQL's plan for `query`, or nothing. */
function postgresProblems(query: Captured, plan: PgNode): string[] {
  const problems: string[] = [];
  for (const node of pgNodes(plan)) {
    const type = node['Node Type'];
    if (type === 'Seq Scan') problems.push('full scan: Seq Scan');
    if (isPage(query.sql) && /Sort$/.test(type)) problems.push(`sorts the page: ${type}`);
    if ((isPage(query.sql) || isCount(query.sql)) && node.Filter && !rechecksIndexedBoolean(node)) {
      problems.push(`${type} reads rows and drops them: Filter ${node.Filter}`);
    }
  }
  if (!pgNodes(plan).some((n) => n['Index Name'])) problems.push('no index search');
  return problems;
}

describe(`list queries use indexes (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let ids: Ids;
  /** SQLite: the columns of each partial index's WHERE clause. */
  const partialColumns = new Map<string, string[]>();

  /**
   * Live and deleted prices, plans and accounts for `who`. The value each filter asks for is rare
   * among the organization's rows (one metric, plan, product, status, currency and country
   * against `many` others), as for a filter worth an index.
   */
  async function seed(who: TestTenant, many: number, livemode = true): Promise<Ids> {
    const { product, metrics } = await createCatalog(t, who.organizationId, 1, livemode);
    const busy = await createCatalog(t, who.organizationId, many, livemode);
    const [metric, busyMetric] = [metrics[0], busy.metrics[0]];
    const inPlan = await createPrice(t, who, metric.id);
    const inGone = await createPrice(t, who, metric.id);
    const deletedPrice = await createPrice(t, who, metric.id);
    await t.http().delete(`/v0/prices/${deletedPrice.id}`).set(who.auth).expect(204);
    for (let i = 0; i < many; i++) await createPrice(t, who, busyMetric.id);
    const plan = await createPlan(t, who, product.id, { prices: [inPlan.id] });
    const gone = await createPlan(t, who, product.id, { prices: [inGone.id] });
    await t.http().delete(`/v0/plans/${gone.id}`).set(who.auth).expect(200);
    for (let i = 0; i < many; i++) await createPlan(t, who, busy.product.id);

    for (let i = 0; i < many; i++) {
      await createAccount(t, who, {
        countryCode: 'DE',
        currency: 'EUR',
        accountNumber: uniqueDigits(10),
        routingNumber: 'COBADEFFXXX',
      });
    }
    const account = await createAccount(t, who);
    // The operator decides live accounts; test-mode ones here are only rows a live list must skip.
    if (livemode) await decide(t, account.id, 'verified');
    const deletedAccount = await createAccount(t, who);
    await t.http().delete(`/v0/externalAccounts/${deletedAccount.id}`).set(who.auth).expect(200);
    return {
      organizationId: who.organizationId,
      productId: product.id,
      metricId: metric.id,
      planId: plan.id,
    };
  }

  beforeAll(async () => {
    // The worker's claim, a SELECT on external_bank_accounts, would land among the queries a
    // capture sees; it is explained below, run by hand.
    t = await startTestApp({ VERIFICATION_WORKER: 'off' });
    const acme = await createTwoModeTenant(t, 'Acme');
    tenant = acme.live;
    ids = await seed(tenant, 40);
    // The same organization's test mode holds as much again: rows a live list must not read.
    await seed(acme.test, 40, false);
    await seed(await t.createTenant('Other'), 5);
    // Test-mode accounts, due for the sandbox (in an hour, as startTestApp sets it).
    const key = await t.app
      .get(ApiKeysService)
      .createApiKey(tenant.organizationId, { mode: 'test' });
    for (let i = 0; i < 5; i++) {
      await createAccount(t, {
        ...tenant,
        apiKey: key.apiKey,
        apiKeyId: key.id,
        auth: { Authorization: `Bearer ${key.apiKey}` },
      });
    }
    if (TEST_DIALECT === 'postgres') {
      // Statistics let PostgreSQL tell the indexes apart: without them every equality is guessed
      // equally selective, and a COUNT, which needs no order, may search any index of the
      // organization and drop the rows of other metrics or statuses. With them, the index that
      // answers the filter is the cheaper one when it exists. VACUUM sets the visibility map,
      // as autovacuum keeps it in a running database (and bench/run.ts's settle does): without it
      // a COUNT costs a heap visit per row whatever the index, and a narrow index on plan_id alone
      // (ix_prices_plan, for a plan's prices in order) could win over the index that holds the
      // organization and mode as well, then drop nothing but read them from the table.
      await t.dataSource.query('VACUUM ANALYZE');
    } else {
      // No statistics on SQLite: without them its planner takes an equality to pick out a few
      // rows, as it does among many organizations. Statistics of this database, where one
      // organization holds most rows, would rightly make it scan the table.
      const indexes: { name: string; sql: string }[] = await t.dataSource.query(
        `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`,
      );
      for (const { name, sql } of indexes) {
        const where = /\bWHERE\b(.*)$/is.exec(sql)?.[1];
        if (where)
          partialColumns.set(
            name,
            [...where.matchAll(/"(\w+)"/g)].map((m) => m[1]),
          );
      }
    }
  });
  afterAll(() => t.close());

  /** The list SELECTs that `path` sends, in order, without repeats. */
  async function capture(path: string): Promise<Captured[]> {
    const spy = jest.spyOn(t.dataSource.logger, 'logQuery');
    try {
      const res = await t.http().get(path).set(tenant.auth);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.body.data.length).toBeGreaterThan(0);
      const seen = new Set<string>();
      return spy.mock.calls
        .map(([sql, params]) => ({ sql, params: params ?? [] }))
        .filter(({ sql }) => /^\s*SELECT\b/i.test(sql) && tableOf(sql) !== undefined)
        .filter(({ sql }) => !seen.has(sql) && !!seen.add(sql));
    } finally {
      spy.mockRestore();
    }
  }

  async function explain(query: Captured): Promise<{ plan: string; problems: string[] }> {
    if (TEST_DIALECT === 'sqlite') {
      const rows: { detail: string }[] = await t.db.read((m) =>
        m.query(`EXPLAIN QUERY PLAN ${query.sql}`, query.params),
      );
      const details = rows.map((r) => r.detail);
      return { plan: details.join('\n'), problems: sqliteProblems(query, details, partialColumns) };
    }
    const runner = t.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query('SET LOCAL enable_seqscan = off');
      await runner.query('SET LOCAL enable_sort = off');
      const [row]: { 'QUERY PLAN': [{ Plan: PgNode }] }[] = await runner.query(
        `EXPLAIN (FORMAT JSON) ${query.sql}`,
        query.params,
      );
      const plan = row['QUERY PLAN'][0].Plan;
      return { plan: pgPlanText(plan), problems: postgresProblems(query, plan) };
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
  }

  /** The list SELECTs that `run` sends, in order, without repeats. */
  async function captureCall(run: () => Promise<unknown>): Promise<Captured[]> {
    const spy = jest.spyOn(t.dataSource.logger, 'logQuery');
    try {
      await run();
      const seen = new Set<string>();
      return spy.mock.calls
        .map(([sql, params]) => ({ sql, params: params ?? [] }))
        .filter(({ sql }) => /^\s*SELECT\b/i.test(sql) && tableOf(sql) !== undefined)
        .filter(({ sql }) => !seen.has(sql) && !!seen.add(sql));
    } finally {
      spy.mockRestore();
    }
  }

  const SERVICE_LISTS: [string, () => Promise<unknown>][] = [
    [
      'the operator queue (external-accounts:pending)',
      () => t.app.get(VerificationService).awaitingOperator(undefined, 1),
    ],
    [
      'the operator queue of one organization (--organization)',
      () => t.app.get(VerificationService).awaitingOperator(ids.organizationId, 1),
    ],
    [
      "the verification worker's claim",
      () =>
        t.db.transaction((m) =>
          t.app.get(ExternalAccountsRepository).claimDue(m, new Date(), 20, new Date()),
        ),
    ],
  ];

  it.each(SERVICE_LISTS)('%s', async (_name, run) => {
    const queries = await captureCall(run);
    expect(queries.filter((q) => isPage(q.sql))).toHaveLength(1);
    const failures: string[] = [];
    for (const query of queries) {
      const { plan, problems } = await explain(query);
      if (problems.length > 0) {
        failures.push(
          [
            `${_name}: ${problems.join('; ')}`,
            `  query:  ${query.sql}`,
            `  params: ${JSON.stringify(query.params)}`,
            `  plan:\n${plan.replace(/^/gm, '    ')}`,
          ].join('\n'),
        );
      }
    }
    if (failures.length > 0) throw new Error(failures.join('\n\n'));
  });

  it.each(REQUESTS)('GET %s', async (_shown, build) => {
    const path = build(ids);
    const queries = await capture(path);
    // A page and its total at least, so a change in how SQL is sent cannot make this pass empty.
    expect(queries.filter((q) => isPage(q.sql))).toHaveLength(1);
    expect(queries.filter((q) => isCount(q.sql))).toHaveLength(1);

    const failures: string[] = [];
    for (const query of queries) {
      const { plan, problems } = await explain(query);
      if (problems.length > 0) {
        failures.push(
          [
            `GET ${path}: ${problems.join('; ')}`,
            `  query:  ${query.sql}`,
            `  params: ${JSON.stringify(query.params)}`,
            `  plan:\n${plan.replace(/^/gm, '    ')}`,
          ].join('\n'),
        );
      }
    }
    // Thrown rather than compared, so the queries and plans print as they are, quotes unescaped.
    if (failures.length > 0) throw new Error(failures.join('\n\n'));
  });
});
