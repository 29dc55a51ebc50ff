import { EventsService } from '../../src/events/events.service';
import { EventType } from '../../src/events/event-types';
import { createTwoModeTenant, TwoModeTenant } from '../helpers/modes';
import { Captured, captureSql, expectIndexSearches, planProblems } from '../helpers/query-plans';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';

/**
 * The events list costs the same at any size (docs/api.md §4): every page query it sends, with
 * each filter and with a cursor, is an index search that needs no sort and reads no row only to
 * drop it (test/helpers/query-plans.ts says how that is checked on each database), and on SQLite
 * the cursor is a range of the index searched.
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
        /^\s*SELECT\b/i.test(sql) &&
        /FROM "events"/.test(sql) &&
        /ORDER BY .*"created_at" DESC/i.test(sql),
    );
  }

  it.each(REQUESTS)('GET /v0/events?limit=10&%s is an index search', async (query) => {
    const path = `/v0/events?limit=10&${query.replace('<cursor>', cursor)}`;
    const queries = await capture(path);
    expect(queries).toHaveLength(1);
    await expectIndexSearches(t, `GET ${path}`, queries);
    // The cursor, a row-value comparison, is a range of the index searched, not a filter.
    if (query.includes('startingAfter')) {
      expect(queries[0].sql).toMatch(/\("?\w*"?\.?"created_at", "?\w*"?\.?"id"\) < \(/);
      if (TEST_DIALECT === 'sqlite') {
        const { plan } = await planProblems(t, queries[0]);
        expect(plan).toMatch(/^SEARCH .* USING (COVERING )?INDEX \S+ \(.*\(created_at,id\)<.*\)$/m);
      }
    }
  });
});
