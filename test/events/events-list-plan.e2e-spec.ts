import { EventsService } from '../../src/events/events.service';
import { EventType, typesOfPrefix } from '../../src/events/event-types';
import { createTwoModeTenant, TwoModeTenant } from '../helpers/modes';
import {
  Captured,
  captureSql,
  expectIndexSearches,
  pgNodes,
  planProblems,
  postgresPlan,
  rechecksIndexedBoolean,
} from '../helpers/query-plans';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';

/**
 * The events list costs the same at any size (docs/api.md §4): every page query it sends, with
 * no filter or an exact type and with a cursor, is an index search that needs no sort and reads
 * no row only to drop it (test/helpers/query-plans.ts says how that is checked on each database),
 * and on SQLite the cursor is a range of the index searched.
 *
 * A prefix (`plan.*`) has no index of its own: its page is a UNION ALL of one exact-type page per
 * type of the resource (EventsRepository.pageOfTypes). It is bounded as well: every member is an
 * index search on ix_events_org_mode_type_created with no sort and no full scan, which its LIMIT
 * stops after limit + 1 rows, and the one sort is the outer one, of at most
 * members × (limit + 1) rows.
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
          if (who === tenant && i === 200) cursor = e.id;
        }
      }
    });
    await t.dataSource.query('ANALYZE');
  });
  afterAll(() => t.close());

  const REQUESTS = [
    '',
    'type=plan.updated',
    'startingAfter=<cursor>',
    'type=plan.updated&startingAfter=<cursor>',
    'endingBefore=<cursor>',
    'type=plan.updated&endingBefore=<cursor>',
  ];

  const PREFIX_REQUESTS = [
    'type=plan.*',
    'type=plan.*&startingAfter=<cursor>',
    'type=plan.*&endingBefore=<cursor>',
  ];

  /** The comparison of a request's cursor: below it for startingAfter, above for endingBefore. */
  function cursorOp(query: string): '<' | '>' | null {
    if (query.includes('startingAfter')) return '<';
    return query.includes('endingBefore') ? '>' : null;
  }

  /** The page SELECT of the events list that `path` sends. */
  function capture(path: string): Promise<Captured[]> {
    return captureSql(
      t,
      async () => {
        const res = await t.http().get(path).set(tenant.live.auth);
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeGreaterThan(0);
      },
      (sql) =>
        /^\s*(SELECT|WITH)\b/i.test(sql) &&
        /FROM "events"/.test(sql) &&
        /ORDER BY .*"created_at" (DESC|ASC)/i.test(sql),
    );
  }

  it.each(REQUESTS)('GET /v0/events?limit=10&%s is an index search', async (query) => {
    const path = `/v0/events?limit=10&${query.replace('<cursor>', cursor)}`;
    const queries = await capture(path);
    expect(queries).toHaveLength(1);
    await expectIndexSearches(t, `GET ${path}`, queries);
    // The cursor, a row-value comparison, is a range of the index searched, not a filter:
    // searched backwards below it for startingAfter, forwards above it for endingBefore.
    const op = cursorOp(query);
    if (op) {
      expect(queries[0].sql).toMatch(
        new RegExp(`\\("?\\w*"?\\.?"created_at", "?\\w*"?\\.?"id"\\) \\${op} \\(`),
      );
      if (TEST_DIALECT === 'sqlite') {
        const { plan } = await planProblems(t, queries[0]);
        expect(plan).toMatch(
          new RegExp(
            `^SEARCH .* USING (COVERING )?INDEX \\S+ \\(.*\\(created_at,id\\)\\${op}.*\\)$`,
            'm',
          ),
        );
      }
    }
  });

  it.each(PREFIX_REQUESTS)(
    'GET /v0/events?limit=10&%s is one bounded index search per type',
    async (query) => {
      const path = `/v0/events?limit=10&${query.replace('<cursor>', cursor)}`;
      const queries = await capture(path);
      expect(queries).toHaveLength(1);
      const [union] = queries;
      const members = typesOfPrefix('plan.*').length;
      const op = cursorOp(query);
      const order = op === '>' ? 'ASC' : 'DESC';
      // One member per type of the resource, each an exact-type page with its own LIMIT (limit +
      // 1, the row that tells whether there is more); the outer LIMIT keeps limit + 1 of them.
      const limits =
        union.sql.match(
          new RegExp(`ORDER BY "created_at" ${order}, "id" ${order} LIMIT (\\?|\\$\\d+)`, 'g'),
        ) ?? [];
      expect(limits).toHaveLength(members + 1);
      expect(union.sql.match(/ UNION ALL /g)).toHaveLength(members - 1);
      expect(union.sql.match(/"type" = (\?|\$\d+)/g)).toHaveLength(members);
      expect(union.params.at(-1)).toBe(11);
      if (op) {
        expect(
          union.sql.match(
            new RegExp(`\\("created_at", "id"\\) \\${op} \\((\\?|\\$\\d+), (\\?|\\$\\d+)\\)`, 'g'),
          ),
        ).toHaveLength(members);
      }
      const plan = await unionPlan(union, members, op);
      expect(plan.problems).toEqual([]);
      // The members stop at their LIMIT: with the outer LIMIT lifted, the union gives at most
      // members × (limit + 1) rows, though the tenant has far more events of these types.
      const lifted = await t.db.read((m) =>
        m.query(t.db.sql(union.sql), [...union.params.slice(0, -1), 100_000]),
      );
      expect(lifted.length).toBeLessThanOrEqual(members * 11);
      const [{ count }] = await t.db.read((m) =>
        m.query(
          t.db.sql(
            `SELECT COUNT(*) AS "count" FROM "events" WHERE "organization_id" = ? AND "livemode" = ? AND "type" LIKE 'plan.%'`,
          ),
          [tenant.organizationId, TEST_DIALECT === 'postgres' ? true : 1],
        ),
      );
      expect(Number(count)).toBeGreaterThan(members * 11);
    },
  );

  /**
   * What keeps the prefix page from being `members` index searches on the type index (each a
   * range of it with the cursor, none sorted, none a full scan) and one sort, the outer one, of
   * the union of the members; with its plan as text.
   */
  async function unionPlan(
    query: Captured,
    members: number,
    op: '<' | '>' | null,
  ): Promise<{ plan: string; problems: string[] }> {
    const problems: string[] = [];
    if (TEST_DIALECT === 'sqlite') {
      const rows: { id: number; parent: number; detail: string }[] = await t.db.read((m) =>
        m.query(`EXPLAIN QUERY PLAN ${query.sql}`, query.params),
      );
      const constraints = `organization_id=? AND livemode=? AND type=?${op ? ` AND (created_at,id)${op}(?,?)` : ''}`;
      const searches = rows.filter((r) => /^SEARCH /.test(r.detail));
      if (searches.length !== members) problems.push(`${searches.length} index searches`);
      for (const { detail } of searches) {
        // The union reads ids only, so the index covers it (the rows are then read by id).
        if (
          detail !==
            `SEARCH events USING COVERING INDEX ix_events_org_mode_type_created (${constraints})` &&
          detail !== `SEARCH events USING INDEX ix_events_org_mode_type_created (${constraints})`
        ) {
          problems.push(`not a search of the type index by all its columns: ${detail}`);
        }
      }
      // A SCAN of a member's or of the union's own result (a subquery, the common table
      // expression) reads what the searches found; one of the table would read every row.
      for (const { detail } of rows.filter((r) => /^SCAN /.test(r.detail))) {
        if (!/^SCAN (t\d+|page)$/.test(detail)) problems.push(`full scan: ${detail}`);
      }
      const sorts = rows.filter((r) => /TEMP B-TREE/.test(r.detail));
      if (sorts.length !== 1 || sorts[0].parent !== 0) {
        problems.push(`sorts other than the outer one: ${sorts.map((r) => r.detail).join('; ')}`);
      }
      const union = rows.find((r) => /^MATERIALIZE page$/.test(r.detail));
      if (!union || union.parent !== 0) problems.push('the union is not the outer query input');
      return { plan: rows.map((r) => `${r.id} ${r.parent} ${r.detail}`).join('\n'), problems };
    }
    // Sequential scans and sorts discouraged, so that a missing index shows (postgresPlan).
    const top = await postgresPlan(t, query);
    const all = pgNodes(top);
    for (const n of all) {
      if (n['Node Type'] === 'Seq Scan') problems.push('full scan: Seq Scan');
      if (n.Filter && !rechecksIndexedBoolean(n)) {
        problems.push(`${n['Node Type']} reads rows and drops them: ${n.Filter}`);
      }
    }
    // Limit, over the one Sort (of the union's rows), over the scan of the union.
    const sorts = all.filter((n) => /Sort$/.test(n['Node Type']));
    const outerSort = (top.Plans ?? []).find((n) => n['Node Type'] === 'Sort');
    if (top['Node Type'] !== 'Limit' || sorts.length !== 1 || sorts[0] !== outerSort) {
      problems.push(
        `sorts other than the outer one: ${sorts.map((n) => n['Node Type']).join(', ')}`,
      );
    }
    // The union: one Limit per member, over an index scan of the type index by its columns.
    const append = all.find((n) => n['Node Type'] === 'Append');
    const memberPlans = append?.Plans ?? [];
    if (memberPlans.length !== members) problems.push(`${memberPlans.length} members`);
    for (const member of memberPlans) {
      const scan = member.Plans?.[0];
      const cond = scan?.['Index Cond'] ?? '';
      if (
        member['Node Type'] !== 'Limit' ||
        // The union reads ids only: an index-only scan when the visibility map allows.
        !['Index Scan', 'Index Only Scan'].includes(scan?.['Node Type'] ?? '') ||
        scan?.['Index Name'] !== 'ix_events_org_mode_type_created' ||
        !/organization_id/.test(cond) ||
        !/livemode/.test(cond) ||
        !/\(?type\)?(::text)? = /.test(cond) ||
        (op !== null &&
          !new RegExp(`ROW\\(created_at, \\(?id\\)?(::text)?\\) \\${op} ROW\\(`).test(cond))
      ) {
        problems.push(
          `a member is not a limited search of the type index: ${JSON.stringify(member)}`,
        );
      }
    }
    const plan = all
      .map((n) => [n['Node Type'], n['Index Name'], n['Index Cond']].filter(Boolean).join(' '))
      .join('\n');
    return { plan, problems };
  }
});
