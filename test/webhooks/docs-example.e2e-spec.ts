import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Server } from 'node:http';
import { BillingEvent, createWebhookReceiver } from '../../docs/examples/receive-webhook';
import { freePort, ROOT } from '../helpers/processes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { eventually } from '../helpers/webhook-receiver';
import { attempts } from './support';

/** The receiving example of docs/webhooks.md, run against the service as an integrator would. */
describe(`the webhook receiving example of docs/webhooks.md (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let server: Server | undefined;

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1',
    });
  });
  afterAll(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await t.close();
  });

  it('is the code the documentation shows', () => {
    const doc = readFileSync(join(ROOT, 'docs/webhooks.md'), 'utf8');
    const example = readFileSync(join(ROOT, 'docs/examples/receive-webhook.ts'), 'utf8');
    expect(doc).toContain(example.trim());
  });

  it('receives and verifies the events of an endpoint, and refuses a forged one', async () => {
    const tenant = await t.createTenant('Integrator');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/webhooks`;
    const created = await t
      .http()
      .post('/v0/webhookEndpoints')
      .set(tenant.auth)
      .send({ url, enabledEvents: ['webhookEndpoint.*'] })
      .expect(201);
    const received: BillingEvent[] = [];
    server = createWebhookReceiver(created.body.secret as string, (event) => {
      if (!received.some((e) => e.id === event.id)) received.push(event);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    await t
      .http()
      .patch(`/v0/webhookEndpoints/${created.body.id}`)
      .set(tenant.auth)
      .send({ description: 'verified by the example' })
      .expect(200);
    await eventually(
      () => Promise.resolve(received.map((e) => e.type).sort()),
      (types) => types.length === 2,
    );
    expect(received.map((e) => e.type).sort()).toEqual([
      'webhookEndpoint.created',
      'webhookEndpoint.updated',
    ]);
    const list = await eventually(
      () => attempts(t, tenant, created.body.id, '&succeeded=true'),
      (a) => a.length === 2,
    );
    expect(list.every((a) => a.statusCode === 204)).toBe(true);

    const forged = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      },
      body: JSON.stringify({ id: 'evt_forged', type: 'plan.deleted' }),
    });
    expect(forged.status).toBe(400);
    expect(received).toHaveLength(2);
  });
});
