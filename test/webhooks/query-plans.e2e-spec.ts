import { newId, ID_PREFIXES } from '../../src/common/ids';
import { EventsService } from '../../src/events/events.service';
import { WebhookDeliveriesRepository } from '../../src/webhooks/webhook-deliveries.repository';
import { createTwoModeTenant, TwoModeTenant } from '../helpers/modes';
import { captureSql, expectIndexSearches, pgNodes, postgresPlan } from '../helpers/query-plans';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { createEndpoint, emit } from './support';

/**
 * The webhooks' queries cost the same at any depth: the endpoints list, the deliveries list (no
 * filter, `eventId`, `succeeded`), the dispatcher's claim of due deliveries and the retention
 * sweep each send statements that are one index search, with no sort and no row read only to be
 * dropped (test/helpers/query-plans.ts says how that is checked on each database).
 *
 * Not covered, and why: `eventId` and `succeeded` together search the event's attempts, at most
 * one per entry of WEBHOOK_RETRY_SCHEDULE plus one, and drop those of the other outcome; the
 * claim while an endpoint has its WEBHOOK_ENDPOINT_CONCURRENCY attempts in flight leaves that
 * endpoint out with `NOT IN`, which reads its due deliveries and drops them (docs/benchmarks.md,
 * "Events and webhooks").
 */
describe(`webhooks query plans (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acme: TwoModeTenant;
  let target: string;
  let eventId: string;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_DISPATCHER: 'off', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    acme = await createTwoModeTenant(t, 'Acme');
    const other = await createTwoModeTenant(t, 'Other');
    const url = 'http://127.0.0.1:9/hooks';
    // Endpoints the lists must not read: deleted ones, the other mode's, another organization's.
    for (let i = 0; i < 10; i++) {
      const gone = await createEndpoint(t, acme.live, url, ['product.*']);
      await t.http().delete(`/v0/webhookEndpoints/${gone.id}`).set(acme.live.auth).expect(200);
      await createEndpoint(t, acme.test, url, ['product.*']);
      await createEndpoint(t, other.live, url, ['*']);
    }
    for (let i = 0; i < 10; i++) await createEndpoint(t, acme.live, url, ['product.*']);
    target = (await createEndpoint(t, acme.live, url, ['plan.*'])).id;
    const noisy = (await createEndpoint(t, acme.live, url, ['plan.*'])).id;

    // Events queue a delivery to `target` and to `noisy`; each gets one to three attempts, the
    // last of two in three succeeding.
    const deliveries = t.app.get(WebhookDeliveriesRepository);
    const started = Date.now() - 3_600_000;
    for (let i = 0; i < 120; i++) {
      const event = await emit(t, acme, true, 'plan.updated', { id: `plan_${i}` });
      if (i === 60) eventId = event.id;
      const queued: { id: string; endpoint_id: string }[] = await t.dataSource.query(
        TEST_DIALECT === 'postgres'
          ? 'SELECT "id", "endpoint_id" FROM "webhook_deliveries" WHERE "event_id" = $1'
          : 'SELECT "id", "endpoint_id" FROM "webhook_deliveries" WHERE "event_id" = ?',
        [event.id],
      );
      await t.db.transaction(async (m) => {
        for (const delivery of queued) {
          const count = 1 + (i % 3);
          for (let attempt = 1; attempt <= count; attempt++) {
            const last = attempt === count;
            await deliveries.insertAttempts(m, [
              {
                id: newId(ID_PREFIXES.webhookAttempt),
                deliveryId: delivery.id,
                endpointId: delivery.endpoint_id,
                eventId: event.id,
                attempt,
                succeeded: last && i % 3 !== 2,
                statusCode: last && i % 3 !== 2 ? 204 : 500,
                durationMs: 12,
                error: last && i % 3 !== 2 ? null : 'answered 500',
                nextRetryAt: null,
                createdAt: new Date(started + i * 1000 + attempt),
              },
            ]);
          }
        }
      });
    }
    expect([target, noisy]).toHaveLength(2);
    if (TEST_DIALECT === 'postgres') await t.dataSource.query('ANALYZE');
  });
  afterAll(() => t.close());

  async function listed(path: string, table: string) {
    const queries = await captureSql(
      t,
      async () => {
        const res = await t.http().get(path).set(acme.live.auth);
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        expect(res.body.data.length).toBeGreaterThan(0);
      },
      (sql) => /^\s*SELECT\b/i.test(sql) && sql.includes(`FROM "${table}"`),
    );
    // A page of one is full, so TypeORM's findAndCount sends its COUNT too: a page and a total.
    expect(queries.filter((q) => /ORDER BY .*"created_at" DESC/i.test(q.sql))).toHaveLength(1);
    expect(queries.filter((q) => /\bCOUNT\(/i.test(q.sql))).toHaveLength(1);
    return queries;
  }

  it('GET /v0/webhookEndpoints: the page and its total are index searches', async () => {
    const path = '/v0/webhookEndpoints?limit=1';
    const queries = await listed(path, 'webhook_endpoints');
    await expectIndexSearches(t, `GET ${path}`, queries);
  });

  it.each(['', '&eventId=<event>', '&succeeded=true', '&succeeded=false'])(
    'GET /v0/webhookEndpoints/{id}/deliveries?limit=1%s: the page and its total are index searches',
    async (filter) => {
      const path = `/v0/webhookEndpoints/${target}/deliveries?limit=1${filter.replace('<event>', eventId)}`;
      const queries = await listed(path, 'webhook_attempts');
      await expectIndexSearches(t, `GET ${path}`, queries);
    },
  );

  it("the dispatcher's claim of due deliveries is an index search", async () => {
    const deliveries = t.app.get(WebhookDeliveriesRepository);
    let due = 0;
    const queries = await captureSql(
      t,
      () =>
        t.db.transaction(async (m) => {
          due = (await deliveries.dueCandidates(m, new Date(), 64, [])).length;
        }),
      (sql) => /^\s*SELECT\b/i.test(sql) && sql.includes('FROM "webhook_deliveries"'),
    );
    expect(due).toBe(64);
    expect(queries).toHaveLength(1);
    await expectIndexSearches(t, 'claim', queries);
  });

  it('a claim leases the deliveries it chose by their primary key', async () => {
    const deliveries = t.app.get(WebhookDeliveriesRepository);
    const now = new Date();
    const queries = await captureSql(
      t,
      () =>
        t.db
          .transaction(async (m) => {
            const chosen = await deliveries.dueCandidates(m, now, 3, []);
            const until = new Date(now.getTime() + 60_000);
            expect(
              await deliveries.take(
                m,
                chosen.map((d) => d.id),
                now,
                until,
                'plan',
              ),
            ).toHaveLength(3);
            throw new Error('rolled back');
          })
          .catch((err: Error) => expect(err.message).toBe('rolled back')),
      (sql) => /^\s*UPDATE "webhook_deliveries"/i.test(sql),
    );
    expect(queries).toHaveLength(1);
    if (TEST_DIALECT === 'sqlite') {
      const plan: { detail: string }[] = await t.db.read((m) =>
        m.query(`EXPLAIN QUERY PLAN ${queries[0].sql}`, queries[0].params),
      );
      expect(plan.map((r) => r.detail)).toEqual([
        expect.stringMatching(
          /^SEARCH webhook_deliveries USING INDEX sqlite_autoindex_webhook_deliveries_1 \(id=\?\)$/,
        ),
      ]);
    } else {
      const nodes = pgNodes(await postgresPlan(t, queries[0]));
      expect(nodes.map((n) => n['Node Type'])).not.toContain('Seq Scan');
      const searched = nodes.filter((n) => n['Index Name']).map((n) => n['Index Name']);
      expect(searched.length).toBeGreaterThan(0);
      expect(new Set(searched)).toEqual(new Set(['webhook_deliveries_pkey']));
    }
  });

  // Last: it deletes what the others read.
  it('the retention sweep finds and deletes events, deliveries and attempts by index', async () => {
    const events = t.app.get(EventsService);
    let deleted = 0;
    const queries = await captureSql(
      t,
      async () => {
        deleted = await events.sweep(new Date(Date.now() + 31 * 86_400_000));
      },
      (sql) =>
        /^\s*(SELECT|DELETE)\b/i.test(sql) &&
        /FROM "(events|webhook_deliveries|webhook_attempts)"/.test(sql),
    );
    expect(deleted).toBeGreaterThan(120);
    // The old events, their deliveries, and the deletes of attempts, deliveries and events.
    const statements = queries.map((q) => {
      const [, verb, table] = /^\s*(\w+)\b.*?\bFROM "(\w+)"/s.exec(q.sql) ?? [];
      return `${verb} ${table}`;
    });
    expect(statements).toEqual([
      'SELECT events',
      'SELECT webhook_deliveries',
      'DELETE webhook_attempts',
      'DELETE webhook_deliveries',
      'DELETE events',
    ]);
    await expectIndexSearches(t, 'sweep', queries);
  });
});
