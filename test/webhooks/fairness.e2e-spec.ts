import { createTwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { WebhookReceiver, startReceiver } from '../helpers/webhook-receiver';
import { createEndpoint, emit } from './support';

/**
 * One organization's trouble never holds another's deliveries (docs/api.md §5.7): an attempt
 * that hangs holds its slot until the timeout (60 s here), and a backlog is sent oldest first,
 * yet another organization's new event arrives well within the receiver's wait (20 s), at most
 * half of WEBHOOK_CONCURRENCY going to one organization and the claim visiting endpoints in turn.
 */
describe(`fair delivery across organizations (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let troubled: WebhookReceiver;
  let healthy: WebhookReceiver;

  beforeEach(async () => {
    troubled = await startReceiver();
    healthy = await startReceiver();
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_TIMEOUT_SECONDS: '60',
      WEBHOOK_LEASE_SECONDS: '120',
      WEBHOOK_CONCURRENCY: '16',
      WEBHOOK_ENDPOINT_CONCURRENCY: '4',
    });
  });
  afterEach(async () => {
    await t.close();
    await troubled.close();
    await healthy.close();
  });

  async function otherOrganizationReceives(): Promise<void> {
    const other = await createTwoModeTenant(t, 'Other');
    await createEndpoint(t, other.live, healthy.url, ['*']);
    await emit(t, other, true);
    await healthy.waitFor(1);
  }

  it("delivers another organization's event while one organization's endpoints hang", async () => {
    troubled.respond(() => undefined); // never answers
    const acme = await createTwoModeTenant(t, 'Acme');
    for (let i = 0; i < 8; i++) await createEndpoint(t, acme.live, troubled.url, ['*']);
    for (let i = 0; i < 4; i++) await emit(t, acme, true);
    await troubled.waitFor(8);
    await otherOrganizationReceives();
  }, 60_000);

  it("delivers another organization's event behind one organization's backlog", async () => {
    troubled.respond((_r, _n, res) => void setTimeout(() => res.writeHead(200).end(), 500));
    const acme = await createTwoModeTenant(t, 'Acme');
    await createEndpoint(t, acme.live, troubled.url, ['*']);
    await createEndpoint(t, acme.live, troubled.url, ['*']);
    for (let i = 0; i < 500; i++) await emit(t, acme, true);
    await troubled.waitFor(8);
    await otherOrganizationReceives();
    // The backlog is still being sent: the other organization did not wait for its end.
    expect(troubled.received.length).toBeLessThan(1000);
  }, 60_000);
});
