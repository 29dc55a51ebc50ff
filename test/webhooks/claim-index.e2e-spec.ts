import { IsNull, Not } from 'typeorm';
import { ID_PREFIXES, newId } from '../../src/common/ids';
import { EventRecord } from '../../src/events/entities/event.entity';
import { EventsService } from '../../src/events/events.service';
import { WebhookDeliveriesRepository } from '../../src/webhooks/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from '../../src/webhooks/webhook-endpoints.repository';
import { createTwoModeTenant } from '../helpers/modes';
import { Captured, captureSql, pgNodes, postgresPlan } from '../helpers/query-plans';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { createEndpoint, emit } from './support';

/**
 * The scale promise of delivery (docs/architecture.md): the claim's reads are index searches
 * however stale the statistics. A history of delivered events is analyzed while nothing is due,
 * then a burst queues deliveries that no ANALYZE has seen (as PostgreSQL's autovacuum leaves a
 * table until it analyzes again); the claim's statements are planned as the database plans them
 * after Database.indexSearchesOnly.
 */
describe(`the delivery claim with statistics from before a burst (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let endpointId: string;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_DISPATCHER: 'off', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    const acme = await createTwoModeTenant(t, 'Acme');
    endpointId = (await createEndpoint(t, acme.live, 'http://127.0.0.1:9/a', ['*'])).id;
    const endpointIds = [
      endpointId,
      (await createEndpoint(t, acme.live, 'http://127.0.0.1:9/b', ['*'])).id,
    ];
    // What the fan-out queues: a delivery of each new event to each endpoint, due now.
    const queue = () =>
      t.db.transaction(async (m) => {
        const now = new Date();
        const events = await m.find(EventRecord, { where: { fanOutAt: Not(IsNull()) } });
        const rows = events.flatMap((e) =>
          endpointIds.map((endpoint) => ({
            id: newId(ID_PREFIXES.webhookDelivery),
            endpointId: endpoint,
            eventId: e.id,
            status: 'pending' as const,
            attempts: 0,
            nextAttemptAt: now,
            leaseToken: null,
            createdAt: now,
            updatedAt: now,
          })),
        );
        await t.app.get(WebhookDeliveriesRepository).insert(m, rows);
        await t.app.get(EventsService).fannedOut(
          m,
          events.map((e) => e.id),
        );
      });
    for (let i = 0; i < 300; i++) await emit(t, acme, true);
    await queue();
    await t.dataSource.query(
      `UPDATE "webhook_deliveries" SET "status" = 'succeeded', "next_attempt_at" = NULL`,
    );
    await t.dataSource.query('ANALYZE');
    for (let i = 0; i < 600; i++) await emit(t, acme, true);
    await queue();
    await t.dataSource.query(`UPDATE "webhook_endpoints" SET "next_delivery_at" = "created_at"`);
  });
  afterAll(() => t.close());

  /** Each step of a statement's plan: the index searched, or what else the step does. */
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

  it("reads the endpoints due and each endpoint's oldest due deliveries from their indexes", async () => {
    const endpoints = t.app.get(WebhookEndpointsRepository);
    const deliveries = t.app.get(WebhookDeliveriesRepository);
    let claimed = 0;
    const queries = await captureSql(
      t,
      () =>
        t.db
          .transaction(async (m) => {
            const now = new Date();
            await t.db.indexSearchesOnly(m);
            const due = await endpoints.due(m, now, 16, { endpoints: [], organizations: [] });
            expect(due).toHaveLength(2);
            const lease = { until: new Date(now.getTime() + 60_000), token: 'plan' };
            claimed = (await deliveries.claim(m, endpointId, now, 8, lease)).length;
            throw new Error('rolled back');
          })
          .catch((err: Error) => expect(err.message).toBe('rolled back')),
      (sql) => /^\s*SELECT\b.*"webhook_(endpoints|deliveries)"/is.test(sql),
    );
    expect(claimed).toBe(8);
    expect(queries).toHaveLength(2);
    const [endpointsPlan, deliveriesPlan] = [await steps(queries[0]), await steps(queries[1])];
    if (TEST_DIALECT === 'sqlite') {
      expect(endpointsPlan).toEqual([
        expect.stringMatching(/^SEARCH \w+ USING INDEX ix_webhook_endpoints_next_delivery /),
      ]);
      expect(deliveriesPlan).toEqual([
        expect.stringMatching(/^SEARCH \w+ USING INDEX ix_webhook_deliveries_endpoint_due /),
      ]);
    } else {
      // A handful of endpoint rows may be scanned; the deliveries never are, nor sorted.
      expect(deliveriesPlan).toEqual(['Index Scan ix_webhook_deliveries_endpoint_due']);
    }
  });
});
