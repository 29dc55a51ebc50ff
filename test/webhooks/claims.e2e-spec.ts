import { EventsService } from '../../src/events/events.service';
import { WebhookDeliveriesRepository } from '../../src/webhooks/webhook-deliveries.repository';
import { createTwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { WebhookReceiver, eventually, startReceiver } from '../helpers/webhook-receiver';
import { createEndpoint } from './support';

const EVENTS = 300;

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
    const due = jest.spyOn(deliveries, 'due');
    const recorded = jest.spyOn(deliveries, 'insertAttempts');
    const events = t.app.get(EventsService);
    await t.db.transaction(async (m) => {
      for (let i = 0; i < EVENTS; i++) {
        await events.record(m, {
          principal: { organizationId: acme.organizationId, livemode: true },
          type: 'product.created',
          object: { id: `prod_${String(i).padStart(26, '0')}`, name: `Widget ${i}` },
          request: null,
          actor: { type: 'system', id: null },
        });
      }
    });

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
