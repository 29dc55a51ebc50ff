import { EventsService } from '../../src/events/events.service';
import { WebhookDeliveriesRepository } from '../../src/webhooks/webhook-deliveries.repository';
import { createTwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { WebhookReceiver, eventually, startReceiver } from '../helpers/webhook-receiver';
import { createEndpoint } from './support';

const EVENTS = 300;

/** Records `count` product.created events in one transaction. */
async function recordEvents(t: TestApp, organizationId: string, count: number): Promise<void> {
  const events = t.app.get(EventsService);
  await t.db.transaction(async (m) => {
    for (let i = 0; i < count; i++) {
      await events.record(m, {
        principal: { organizationId, livemode: true },
        type: 'product.created',
        object: { id: `prod_${String(i).padStart(26, '0')}`, name: `Widget ${i}` },
        request: null,
        actor: { type: 'system', id: null },
      });
    }
  });
}

/**
 * The dispatcher claims deliveries in batches: it claims again once half of what it may hold is
 * gone, not each time an attempt ends (docs/webhooks.md, "The dispatcher"). Every claim is a
 * transaction of four statements; one per attempt or two made them most of its CPU.
 */
describe(`webhook claims (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it(`delivers ${EVENTS} events to one endpoint in a few claims and records`, async () => {
    const acme = await createTwoModeTenant(t, 'Acme');
    await createEndpoint(t, acme.live, receiver.url, ['product.created']);
    const deliveries = t.app.get(WebhookDeliveriesRepository);
    const due = jest.spyOn(deliveries, 'dueCandidates');
    const recorded = jest.spyOn(deliveries, 'insertAttempts');
    await recordEvents(t, acme.organizationId, EVENTS);

    const received = await receiver.waitFor(EVENTS, 60_000);

    const ids = new Set(received.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(EVENTS);
    // Claiming at every attempt's end made about 160 claims here (4-6 since).
    expect(due.mock.calls.length).toBeLessThanOrEqual(EVENTS / 15);

    // Outcomes are recorded in batches too, gathered for a few milliseconds: on SQLite, where a
    // record's transaction is quick, recording as soon as one ended made about 130 transactions
    // here (17 since), and their COMMITs were most of the dispatcher's SQL time.
    const rows = () => recorded.mock.calls.reduce((n, [, attempts]) => n + attempts.length, 0);
    await eventually(
      () => Promise.resolve(rows()),
      (n) => n >= EVENTS,
    );
    expect(rows()).toBe(EVENTS);
    expect(recorded.mock.calls.length).toBeLessThanOrEqual(EVENTS / 6);
  });
});

/**
 * With several endpoints, each may hold as much as the process may in all: an attempt's end at
 * one of them must not start a claim of the few deliveries the others left room for: a claim
 * waits for room for half a full claim (docs/webhooks.md, "The dispatcher").
 */
describe(`webhook claims to several endpoints (${TEST_DIALECT})`, () => {
  // 2 attempts at once in all: the process holds at most 2 × 64 rounds = 128, half a claim is 64.
  const HELD_MOST = 128;
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_CONCURRENCY: '2',
      WEBHOOK_ENDPOINT_CONCURRENCY: '1',
      WEBHOOK_ENDPOINT_CONCURRENCY_MAX: '2',
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('claims at least half a full claim at a time', async () => {
    const acme = await createTwoModeTenant(t, 'Acme');
    for (const path of ['/a', '/b', '/c']) {
      await createEndpoint(t, acme.live, `${receiver.url}${path}`, ['product.created']);
    }
    const due = jest.spyOn(t.app.get(WebhookDeliveriesRepository), 'dueCandidates');
    await recordEvents(t, acme.organizationId, EVENTS);

    await receiver.waitFor(EVENTS * 3, 120_000);

    // The limit a claim reads is twice the deliveries it may take.
    const taking = due.mock.calls.map(([, , limit]) => limit / 2);
    expect(taking.length).toBeGreaterThan(3);
    expect(Math.min(...taking)).toBeGreaterThanOrEqual(HELD_MOST / 2);
  });
});
