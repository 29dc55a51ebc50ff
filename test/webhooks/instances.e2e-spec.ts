import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app.setup';
import { createTwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { WebhookReceiver, eventually, startReceiver } from '../helpers/webhook-receiver';
import { createEndpoint, emit } from './support';

/**
 * Two complete instances of the service on one database, both dispatching: each attempt is
 * made once (FOR UPDATE SKIP LOCKED on PostgreSQL; on SQLite the claims of the two connections
 * are serialized by the database's write lock), and both shut down cleanly.
 */
describe(`two dispatching instances on one ${TEST_DIALECT} database`, () => {
  let t: TestApp;
  let second: NestFastifyApplication;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    const env = {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '20',
      WEBHOOK_CONCURRENCY: '4',
      WEBHOOK_ENDPOINT_CONCURRENCY: '4',
    };
    t = await startTestApp(env);
    second = await createApp(t.config);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await second.close();
    await t.close();
    await receiver.close();
  });

  it('delivers every event once, whichever instance claims it', async () => {
    const tenant = await createTwoModeTenant(t, 'Shared');
    // Answers after a moment, so that attempts overlap and both instances poll meanwhile.
    receiver.respond((_req, _n, res) => {
      setTimeout(() => res.writeHead(200).end(), 30);
    });
    const endpoint = await createEndpoint(t, tenant.live, receiver.url, ['product.*']);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await emit(t, tenant, true, 'product.updated')).id);
    await receiver.waitFor(40, 60_000);
    const deliveries = await eventually(
      (): Promise<{ attempts: number | string }[]> =>
        t.dataSource.query(
          t.db.sql(
            `SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'succeeded'`,
          ),
          [endpoint.id],
        ),
      (rows) => rows.length === 40,
    );
    expect(deliveries.every((d) => Number(d.attempts) === 1)).toBe(true);
    // Time for a duplicate to arrive, had one been sent.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const received = receiver.received.map((r) => r.headers['webhook-id'] as string);
    expect(received.sort()).toEqual([...ids].sort());
    const [{ n }] = await t.dataSource.query(
      t.db.sql('SELECT COUNT(*) AS n FROM webhook_attempts WHERE endpoint_id = ?'),
      [endpoint.id],
    );
    expect(Number(n)).toBe(40);
  });
  it('stops sending to an endpoint disabled through the other instance, beyond attempts in flight', async () => {
    const tenant = await createTwoModeTenant(t, 'Disabled elsewhere');
    const r = await startReceiver();
    try {
      r.respond((_req, _n, res) => {
        setTimeout(() => res.writeHead(204).end(), 250);
      });
      const endpoint = await createEndpoint(t, tenant.live, r.url, ['product.*']);
      for (let i = 0; i < 80; i++) await emit(t, tenant, true, 'product.updated');
      await r.waitFor(12, 60_000);
      // Through the first instance: the second learns of it at its next poll (recheck).
      await t
        .http()
        .patch(`/v0/webhookEndpoints/${endpoint.id}`)
        .set(tenant.live.auth)
        .send({ status: 'disabled' })
        .expect(200);
      const atAnswer = r.received.length;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      // In flight at most 4 per instance (WEBHOOK_ENDPOINT_CONCURRENCY), and the second's next
      // round, which may start before its poll notices the change.
      expect(r.received.length).toBeLessThanOrEqual(atAnswer + 12);
      expect(r.received.length).toBeLessThan(60);
    } finally {
      await r.close();
    }
  });
});
