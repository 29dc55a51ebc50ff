import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { createApp } from '../../src/app.setup';
import { createTwoModeTenant, TwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { Received, WebhookReceiver, eventually, startReceiver } from '../helpers/webhook-receiver';
import { QUICK_DELIVERY, createEndpoint, emit } from './support';

/** Events queued for the endpoint in each test; it answers each after ANSWER_MS. */
const EVENTS = 30;
const ANSWER_MS = 300;
/** WEBHOOK_ENDPOINT_CONCURRENCY below: the attempts that may be in flight at a change. */
const IN_FLIGHT = 2;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The dispatcher claims rounds of deliveries ahead of a paced endpoint (WebhookDispatcher
 * `aheadFor`), and they wait in the sending thread for their turn. A change to the endpoint
 * reaches them: once a PATCH, DELETE or rotateSecret has answered, nothing more is sent with what
 * the endpoint was, beyond the attempts already in flight (docs/webhooks.md).
 */
describe(`a change to an endpoint reaches the deliveries already claimed (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TwoModeTenant;
  /** A second instance on the same database that does not deliver. */
  let other: NestFastifyApplication;
  const receivers: WebhookReceiver[] = [];

  async function receiver(): Promise<WebhookReceiver> {
    const r = await startReceiver();
    r.respond((_req, _n, res) => {
      setTimeout(() => res.writeHead(204).end(), ANSWER_MS);
    });
    receivers.push(r);
    return r;
  }

  /** An endpoint with EVENTS events queued, a few of them received: the rest are held ahead. */
  async function busyEndpoint(r: WebhookReceiver): Promise<{ id: string; secret: string }> {
    const endpoint = await createEndpoint(t, tenant.live, r.url, ['plan.deleted']);
    for (let i = 0; i < EVENTS; i++) await emit(t, tenant, true, 'plan.deleted');
    await r.waitFor(2 * IN_FLIGHT + 1, 30_000);
    return endpoint;
  }

  const statuses = (endpointId: string) =>
    t.dataSource.query<{ status: string }[]>(
      t.db.sql(`SELECT status FROM webhook_deliveries WHERE endpoint_id = ?`),
      [endpointId],
    );

  beforeAll(async () => {
    t = await startTestApp({
      ...QUICK_DELIVERY,
      // Long enough that many rounds are claimed ahead of the endpoint.
      WEBHOOK_LEASE_SECONDS: '10',
      WEBHOOK_ENDPOINT_CONCURRENCY: String(IN_FLIGHT),
      WEBHOOK_ENDPOINT_CONCURRENCY_MAX: String(IN_FLIGHT),
    });
    tenant = await createTwoModeTenant(t, 'Changes');
    other = await createApp({
      ...t.config,
      webhooks: { ...t.config.webhooks, dispatcherEnabled: false },
    });
  });
  afterAll(async () => {
    await other.close();
    await t.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it.each([
    'disabled',
    'deleted',
    // Through an instance that does not deliver: the delivering one learns of both changes at
    // its next poll, when the endpoint reads as it did when the deliveries were claimed.
    'disabled and enabled again at once, elsewhere',
  ])(
    'sends only the attempts in flight once the endpoint is %s, and cancels the rest',
    async (change) => {
      const r = await receiver();
      const endpoint = await busyEndpoint(r);
      const path = `/v0/webhookEndpoints/${endpoint.id}`;
      const via = change.endsWith('elsewhere') ? request(other.getHttpServer()) : t.http();
      const status = (to: string) =>
        via.patch(path).set(tenant.live.auth).send({ status: to }).expect(200);
      if (change === 'deleted') await t.http().delete(path).set(tenant.live.auth).expect(200);
      else await status('disabled');
      // Enabling it again sends the events recorded from then on, not those the disable canceled.
      if (change.endsWith('elsewhere')) await status('enabled');
      const atAnswer = r.received.length;
      // Long enough for several more rounds of the held deliveries, had they been sent.
      await sleep(6 * ANSWER_MS);
      expect(r.received.length).toBeLessThanOrEqual(atAnswer + IN_FLIGHT);
      expect(r.received.length).toBeLessThan(EVENTS);
      // Those taken back were handed back and canceled by the next claim: none is left to send.
      const rows = await eventually(
        () => statuses(endpoint.id),
        (s) => s.every((d) => d.status !== 'pending'),
      );
      expect(rows).toHaveLength(EVENTS);
      const canceled = rows.filter((d) => d.status === 'canceled').length;
      expect(canceled).toBeGreaterThanOrEqual(EVENTS - r.received.length);
    },
  );

  it('sends to the new URL once a PATCH of url has answered', async () => {
    const before = await receiver();
    const after = await receiver();
    const endpoint = await busyEndpoint(before);
    await t
      .http()
      .patch(`/v0/webhookEndpoints/${endpoint.id}`)
      .set(tenant.live.auth)
      .send({ url: after.url })
      .expect(200);
    const atAnswer = before.received.length;
    await after.waitFor(1, 30_000);
    // Every event arrives, the ones not sent before the change at the new URL.
    const ids = (r: Received[]) => r.map((x) => x.headers['webhook-id'] as string);
    await eventually(
      () => Promise.resolve(new Set([...ids(before.received), ...ids(after.received)]).size),
      (n) => n === EVENTS,
      30_000,
    );
    expect(before.received.length).toBeLessThanOrEqual(atAnswer + IN_FLIGHT);
    expect(after.received.length).toBeGreaterThanOrEqual(EVENTS - atAnswer - IN_FLIGHT);
  });

  it('signs with the new secret too once rotateSecret has answered', async () => {
    const r = await receiver();
    const endpoint = await busyEndpoint(r);
    const rotated = await t
      .http()
      .post(`/v0/webhookEndpoints/${endpoint.id}/rotateSecret`)
      .set(tenant.live.auth)
      .expect(200);
    const atAnswer = r.received.length;
    const all = await r.waitFor(EVENTS, 30_000);
    const verifies = (secret: string, x: Received) => {
      try {
        new Webhook(secret).verify(x.body, {
          'webhook-id': x.headers['webhook-id'] as string,
          'webhook-timestamp': x.headers['webhook-timestamp'] as string,
          'webhook-signature': x.headers['webhook-signature'] as string,
        });
        return true;
      } catch {
        return false;
      }
    };
    const later = all.slice(atAnswer + IN_FLIGHT);
    expect(later.length).toBeGreaterThan(0);
    for (const x of later) {
      expect(verifies(rotated.body.secret as string, x)).toBe(true);
      // The old secret signs as well, for its grace period.
      expect(verifies(endpoint.secret, x)).toBe(true);
    }
  });
});
