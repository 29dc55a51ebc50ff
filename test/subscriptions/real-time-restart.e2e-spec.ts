import { childServices } from '../helpers/child-services';
import { RunningServer } from '../helpers/processes';
import { TEST_DIALECT } from '../helpers/test-database';
import { verifiedWebhook } from '../helpers/verification';
import { eventually } from '../helpers/webhook-receiver';

const API_KEY = `sk_test_${'S'.repeat(32)}`;
const DAY_MS = 86_400_000;

/**
 * Real time (docs/api.md §5.10, docs/billing.md): a pending subscription starts and a scheduled
 * end takes effect by themselves when their instant passes, even when it passed while the
 * service was down: the real service in a child process is killed (SIGKILL) before the
 * instants, restarted after them, and does each once, with its event delivered.
 */
describe(`subscriptions in real time across a restart (${TEST_DIALECT})`, () => {
  const services = childServices(API_KEY);
  const { start, api } = services;

  async function created(server: RunningServer, path: string, body: object) {
    const res = await api(server, 'POST', path, body);
    expect(res.status).toBe(201);
    return res.body;
  }

  it('starts a pending subscription and ends a scheduled one after a SIGKILL', async () => {
    const first = await start();
    const endpoint = await created(first, '/v0/webhookEndpoints', {
      url: services.receiver.url,
      enabledEvents: ['subscription.started', 'subscription.terminated'],
    });
    const product = await created(first, '/v0/products', { name: 'API' });
    const plan = async () => {
      const metric = await created(first, '/v0/billableMetrics', {
        productId: product.id,
        name: 'Calls',
        unit: 'call',
        aggregation: 'COUNT',
      });
      const price = await created(first, '/v0/prices', {
        billableMetricId: metric.id,
        model: 'standard',
        invoiceDisplayName: 'Calls',
        properties: { unitPrice: '0.01' },
      });
      return created(first, '/v0/plans', {
        name: 'Weekly',
        productId: product.id,
        billingInterval: 'weekly',
        prices: [price.id],
      });
    };
    const customer = await created(first, '/v0/customers', {
      name: 'Jane',
      email: 'j@example.com',
    });
    const soon = Date.now() + 4000;
    // Pending until `soon`.
    const pending = await created(first, '/v0/subscriptions', {
      customerId: customer.id,
      planId: (await plan()).id,
      startedAt: new Date(soon).toISOString(),
    });
    // Backdated so that its first weekly period ends at `soon`, and terminated at period end.
    const ending = await created(first, '/v0/subscriptions', {
      customerId: customer.id,
      planId: (await plan()).id,
      startedAt: new Date(soon - 7 * DAY_MS).toISOString(),
    });
    const scheduled = await api(first, 'POST', `/v0/subscriptions/${ending.id}/termination`, {
      reason: 'Cancelled',
    });
    expect(scheduled.body).toMatchObject({
      status: 'active',
      endingAt: new Date(soon).toISOString(),
    });
    expect(pending.status).toBe('pending');
    await first.stop('SIGKILL');
    // Down while the instants pass.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, soon - Date.now()) + 500));

    const second = await start();
    const got = await services.receiver.waitFor(2, 60_000);
    const events = got.map((r) => verifiedWebhook(endpoint.secret as string, r));
    expect(events.map((e) => [e.type, e.data.object.id, e.actor.type]).sort()).toEqual(
      [
        ['subscription.started', pending.id, 'system'],
        ['subscription.terminated', ending.id, 'system'],
      ].sort(),
    );
    const started = await eventually(
      () => api(second, 'GET', `/v0/subscriptions/${pending.id}`),
      (r) => r.body.status === 'active',
    );
    expect(started.body).toMatchObject({
      currentPeriodStart: new Date(soon).toISOString(),
      currentPeriodEnd: new Date(soon + 7 * DAY_MS).toISOString(),
    });
    const ended = await api(second, 'GET', `/v0/subscriptions/${ending.id}`);
    expect(ended.body).toMatchObject({
      status: 'terminated',
      terminatedAt: new Date(soon).toISOString(),
    });
    // Each once, however many polls ran.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const recorded = await api(second, 'GET', '/v0/events?type=subscription.*&limit=100');
    const types = (recorded.body.data as { type: string }[]).map((e) => e.type).sort();
    expect(types).toEqual([
      'subscription.created',
      'subscription.created',
      'subscription.started',
      'subscription.terminated',
      'subscription.updated',
    ]);
  }, 180_000);
});
