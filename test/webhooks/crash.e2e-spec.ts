import { Webhook } from 'standardwebhooks';
import { childServices } from '../helpers/child-services';
import { TEST_DIALECT } from '../helpers/test-database';
import { eventually } from '../helpers/webhook-receiver';

const API_KEY = `sk_live_${'W'.repeat(32)}`;

/**
 * Crash safety of delivery (issue 15, item 5) with the real service in a child process, killed
 * with SIGKILL: nothing is lost, on either database.
 */
describe(`webhook delivery across a SIGKILL (${TEST_DIALECT})`, () => {
  const services = childServices(API_KEY, {
    WEBHOOK_RETRY_SCHEDULE: '1',
    WEBHOOK_TIMEOUT_SECONDS: '2',
    WEBHOOK_LEASE_SECONDS: '3',
  });
  const { start, api } = services;
  const receiver = () => services.receiver;

  it('delivers, after a restart, the event of a write committed just before the process was killed', async () => {
    // The first process has its dispatcher off: it dies with the event in the outbox only,
    // exactly as a process killed between the commit and its first poll would.
    const first = await start({ WEBHOOK_DISPATCHER: 'off' });
    const created = await api(first, 'POST', '/v0/webhookEndpoints', {
      url: receiver().url,
      enabledEvents: ['webhookEndpoint.created'],
    });
    expect(created.status).toBe(201);
    await first.stop('SIGKILL');
    expect(receiver().received).toHaveLength(0);

    const second = await start();
    const [got] = await receiver().waitFor(1, 30_000);
    const event = new Webhook(created.body.secret as string).verify(got.body, {
      'webhook-id': got.headers['webhook-id'] as string,
      'webhook-timestamp': got.headers['webhook-timestamp'] as string,
      'webhook-signature': got.headers['webhook-signature'] as string,
    }) as { type: string; data: { object: { id: string } } };
    expect(event.type).toBe('webhookEndpoint.created');
    expect(event.data.object.id).toBe(created.body.id);
    const attempts = await eventually(
      () => api(second, 'GET', `/v0/webhookEndpoints/${created.body.id}/deliveries`),
      (r) => r.body.data?.length === 1,
    );
    expect(attempts.body.data[0]).toMatchObject({ succeeded: true, attempt: 1 });
  });

  it('retries, after a restart, a delivery whose process was killed during the attempt', async () => {
    // The receiver holds the first request open; the server dies while waiting for the answer.
    receiver().respond((_req, n, res) => {
      if (n > 0) res.writeHead(200).end();
    });
    const first = await start();
    const created = await api(first, 'POST', '/v0/webhookEndpoints', {
      url: receiver().url,
      enabledEvents: ['webhookEndpoint.created'],
    });
    expect(created.status).toBe(201);
    await receiver().waitFor(1, 30_000);
    await first.stop('SIGKILL');

    const second = await start();
    const got = await receiver().waitFor(2, 30_000);
    expect(got[1].headers['webhook-id']).toBe(got[0].headers['webhook-id']);
    const attempts = await eventually(
      () => api(second, 'GET', `/v0/webhookEndpoints/${created.body.id}/deliveries`),
      (r) => r.body.data?.length === 1,
    );
    // The killed attempt left no outcome; the retry is the first attempt on record.
    expect(attempts.body.data[0]).toMatchObject({ succeeded: true, statusCode: 200 });
  });

  it('stops cleanly on SIGTERM during an attempt, which is handed back and made after the restart', async () => {
    receiver().respond((_req, n, res) => {
      if (n > 0) res.writeHead(200).end();
    });
    const first = await start({ WEBHOOK_TIMEOUT_SECONDS: '30', WEBHOOK_LEASE_SECONDS: '600' });
    const created = await api(first, 'POST', '/v0/webhookEndpoints', {
      url: receiver().url,
      enabledEvents: ['webhookEndpoint.created'],
    });
    expect(created.status).toBe(201);
    await receiver().waitFor(1, 30_000);
    // Well within SHUTDOWN_TIMEOUT_SECONDS (10), though the attempt could run 30 seconds more.
    expect(await first.stop('SIGTERM')).toBe(0);

    // Handed back as due, not counted, and not held for the 10-minute lease.
    const second = await start();
    const got = await receiver().waitFor(2, 30_000);
    expect(got[1].headers['webhook-id']).toBe(got[0].headers['webhook-id']);
    const attempts = await eventually(
      () => api(second, 'GET', `/v0/webhookEndpoints/${created.body.id}/deliveries`),
      (r) => r.body.data?.length === 1,
    );
    expect(attempts.body.data[0]).toMatchObject({ attempt: 1, succeeded: true });
  });
});
