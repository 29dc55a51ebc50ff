import { EventsService } from '../../src/events/events.service';
import { EventType } from '../../src/events/event-types';
import { TestApp, TestTenant } from '../helpers/test-app';

/**
 * Delivery to receivers on 127.0.0.1 in seconds: retries a second apart, polls every 100 ms, a
 * 2 s timeout, and at most 2 attempts at once to an endpoint.
 */
export const QUICK_DELIVERY = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1,1',
  WEBHOOK_POLL_INTERVAL_MS: '100',
  WEBHOOK_TIMEOUT_SECONDS: '2',
  WEBHOOK_LEASE_SECONDS: '5',
  WEBHOOK_ENDPOINT_CONCURRENCY: '2',
};

/** Records an event as another module's write would: in a transaction, through record(). */
export function emit(
  t: TestApp,
  tenant: { organizationId: string },
  livemode: boolean,
  type: EventType = 'product.created',
  object: Record<string, unknown> = { id: 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC', name: 'Widget' },
) {
  const events = t.app.get(EventsService);
  return t.db.transaction(
    async (m) =>
      await events.record(m, {
        principal: { organizationId: tenant.organizationId, livemode },
        type,
        object,
        request: null,
        actor: { type: 'system', id: null },
      }),
  );
}

export async function createEndpoint(
  t: TestApp,
  who: TestTenant,
  url: string,
  enabledEvents: string[] = ['*'],
): Promise<{ id: string; secret: string }> {
  const res = await t
    .http()
    .post('/v0/webhookEndpoints')
    .set(who.auth)
    .send({ url, enabledEvents });
  if (res.status !== 201) throw new Error(`create endpoint: ${res.status} ${res.text}`);
  return res.body;
}

export async function attempts(t: TestApp, who: TestTenant, endpointId: string, query = '') {
  const res = await t
    .http()
    .get(`/v0/webhookEndpoints/${endpointId}/deliveries?limit=100${query}`)
    .set(who.auth);
  if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${res.text}`);
  return res.body.data as {
    eventId: string;
    attempt: number;
    succeeded: boolean;
    statusCode: number | null;
    error: string | null;
    nextRetryAt: string | null;
  }[];
}
