import { createTwoModeTenant, TwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { WebhookReceiver, eventually, startReceiver } from '../helpers/webhook-receiver';
import { attempts, createEndpoint, emit } from './support';

/**
 * The forgery rules at delivery time (WEBHOOK_ALLOW_PRIVATE_NETWORKS unset): an endpoint saved
 * with a public address whose name later resolves to an internal one (DNS rebinding), or whose
 * row was changed behind the API, is refused on the address the connection would take, and the
 * internal receiver hears nothing.
 */
describe(`webhook forgery refusals at delivery (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TwoModeTenant;
  let internal: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_RETRY_SCHEDULE: '3600',
    });
    tenant = await createTwoModeTenant(t, 'Forgery');
    internal = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await internal.close();
  });

  /** An endpoint saved through the API, then pointed at `url` behind its back. */
  async function endpointAt(url: string): Promise<string> {
    const endpoint = await createEndpoint(t, tenant.live, 'https://93.184.216.34/hooks', [
      'product.created',
    ]);
    await t.db.transaction((m) =>
      m.query(t.db.sql('UPDATE "webhook_endpoints" SET "url" = ? WHERE "id" = ?'), [
        url,
        endpoint.id,
      ]),
    );
    return endpoint.id;
  }

  const port = () => new URL(internal.url).port;

  it.each([
    [
      'a name that resolves to 127.0.0.1',
      () => `https://localhost:${port()}/hooks`,
      // Never what the name resolved to: the deliveries list would map internal names.
      /^(?!.*(127\.0\.0\.1|::1)).*localhost does not resolve to public addresses only/,
    ],
    ['a loopback address', () => `https://127.0.0.1:${port()}/hooks`, /internal address/],
    ['a plain http:// URL', () => `http://127.0.0.1:${port()}/hooks`, /https:\/\//],
  ])('refuses %s and sends nothing', async (_what, url, reason) => {
    const id = await endpointAt(url());
    await emit(t, tenant, true, 'product.created');
    const list = await eventually(
      () => attempts(t, tenant.live, id),
      (a) => a.length >= 1,
    );
    expect(list[0]).toMatchObject({ succeeded: false, statusCode: null });
    expect(list[0].error).toMatch(/^refused: /);
    expect(list[0].error).toMatch(reason);
    expect(internal.received).toHaveLength(0);
  });
});
