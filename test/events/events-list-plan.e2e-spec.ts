import { EventsService } from '../../src/events/events.service';
import { EventType } from '../../src/events/event-types';
import { createTwoModeTenant, TwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';

/**
 * The events list costs the same at any size (API.md section 4): every page query it sends, with
 * each filter and with a cursor, is an index search that needs no sort and reads no row only to
 * drop it, as test/list-indexes.e2e-spec.ts proves for the offset lists. SQLite: only
 * `SEARCH ... USING INDEX` with every compared column an index constraint; PostgreSQL (with seq
 * scans and sorts, incremental ones too, disabled, so that a small table does not hide a missing index): no Seq Scan, no
 * Sort and no Filter.
 */
describe(`events list query plans (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TwoModeTenant;
  let cursor: string;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTwoModeTenant(t, 'Busy');
    const quiet = await createTwoModeTenant(t, 'Quiet');
    const events = t.app.get(EventsService);
    const types: EventType[] = ['plan.created', 'plan.updated', 'product.created', 'price.updated'];
    await t.db.transaction(async (m) => {
      for (let i = 0; i < 400; i++) {
        for (const [who, livemode] of [
          [tenant, i % 3 !== 0],
          [quiet, true],
        ] as const) {
          const e = await events.record(m, {
            principal: { organizationId: who.organizationId, livemode },
            type: types[i % types.length],
            object: { id: `obj_${i}` },
            request: null,
            actor: { type: 'system', id: null },
          });
          if (who === tenant && i === 200) cursor = e!.id;
        }
      }
    });
    await t.dataSource.query('ANALYZE');
  });
  afterAll(() => t.close());

  const REQUESTS = [
    '',
    'type=plan.updated',
    'type=plan.*',
    'startingAfter=<cursor>',
    'type=plan.updated&startingAfter=<cursor>',
    'type=plan.*&startingAfter=<cursor>',
  ];

  interface Captured {
    sql: string;
    params: unknown[];
  }

  async function capture(path: string): Promise<Captured[]> {
    const spy = jest.spyOn(t.dataSource.logger, 'logQuery');
    try {
      const res = await t.http().get(path).set(tenant.live.auth);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeGreaterThan(0);
      return spy.mock.calls
        .map(([sql, params]) => ({ sql, params: params ?? [] }))
        .filter(({ sql }) => /^\s*SELECT\b/i.test(sql) && /FROM "events"/.test(sql))
        .filter(({ sql }) => /ORDER BY .*"created_at" DESC/i.test(sql));
    } finally {
      spy.mockRestore();
    }
  }

  /** The columns the WHERE clause compares to a parameter. */
  function filterColumns(sql: string): string[] {
    const where = /\bWHERE\b(.*?)(\bORDER BY\b|$)/is.exec(sql)?.[1] ?? '';
    return [...new Set([...where.matchAll(/"(\w+)"\s*=\s*(?:\?|\$\d+)/g)].map((m) => m[1]))];
  }

  async function problemsOf(query: Captured): Promise<{ plan: string; problems: string[] }> {
    const problems: string[] = [];
    if (TEST_DIALECT === 'sqlite') {
      const rows: { detail: string }[] = await t.db.read((m) =>
        m.query(`EXPLAIN QUERY PLAN ${query.sql}`, query.params),
      );
      const details = rows.map((r) => r.detail);
      for (const d of details) {
        if (/^SCAN /.test(d)) problems.push(`full scan: ${d}`);
        if (/TEMP B-TREE/.test(d)) problems.push(`sorts: ${d}`);
      }
      const search = details
        .map((d) => /^SEARCH \S+ USING (?:COVERING )?INDEX (\S+) \((.*)\)$/.exec(d))
        .find((m) => m !== null);
      if (!search) problems.push('no index search');
      else {
        const used = search[2].split(' AND ').map((c) => c.replace(/^\(/, '').split(/[=<>,]/)[0]);
        const left = filterColumns(query.sql).filter((c) => !used.includes(c));
        if (left.length > 0) problems.push(`${search[1]} does not answer ${left.join(', ')}`);
        if (/startingAfter/.test(query.sql) || query.params.length > 3) {
          if (/"created_at", "id"\) </.test(query.sql) && !/created_at/.test(search[2])) {
            problems.push('the cursor is not an index range');
          }
        }
      }
      return { plan: details.join('\n'), problems };
    }
    const runner = t.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query('SET LOCAL enable_seqscan = off');
      await runner.query('SET LOCAL enable_sort = off');
      // PostgreSQL 13+ has a sort of its own for a prefix-ordered input (an index on created_at
      // alone, then id): a sort all the same, so it is off too.
      await runner.query('SET LOCAL enable_incremental_sort = off');
      const [row]: { 'QUERY PLAN': [{ Plan: any }] }[] = await runner.query(
        `EXPLAIN (FORMAT JSON) ${query.sql}`,
        query.params,
      );
      const nodes: any[] = [];
      const walk = (n: any) => {
        nodes.push(n);
        (n.Plans ?? []).forEach(walk);
      };
      walk(row['QUERY PLAN'][0].Plan);
      for (const n of nodes) {
        if (n['Node Type'] === 'Seq Scan') problems.push('full scan');
        if (/Sort$/.test(n['Node Type'])) problems.push(`sorts: ${n['Node Type']}`);
        if (n.Filter) problems.push(`reads rows and drops them: ${n.Filter}`);
      }
      if (!nodes.some((n) => n['Index Name'])) problems.push('no index search');
      return {
        plan: JSON.stringify(nodes.map((n) => [n['Node Type'], n['Index Name'], n['Index Cond']])),
        problems,
      };
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
  }

  it.each(REQUESTS)('GET /v0/events?limit=10&%s is an index search', async (query) => {
    const path = `/v0/events?limit=10&${query.replace('<cursor>', cursor)}`;
    const queries = await capture(path);
    expect(queries).toHaveLength(1);
    const { plan, problems } = await problemsOf(queries[0]);
    if (problems.length > 0) {
      throw new Error(`${path}: ${problems.join('; ')}\n  ${queries[0].sql}\n  ${plan}`);
    }
  });
});
