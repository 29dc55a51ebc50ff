import { Webhook } from 'standardwebhooks';
import { decodeTime } from 'ulid';
import { EventsService } from '../../src/events/events.service';
import { createTwoModeTenant, TwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { WebhookReceiver, eventually, startReceiver } from '../helpers/webhook-receiver';
import { QUICK_DELIVERY, attempts, createEndpoint, emit } from './support';

/**
 * Delivery to real HTTP receivers on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true), with a
 * retry schedule of seconds. Signatures are checked with the standardwebhooks verifier, as an
 * integrator checks them.
 */
describe(`webhook delivery (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acme: TwoModeTenant;
  const receivers: WebhookReceiver[] = [];

  async function receiver(): Promise<WebhookReceiver> {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  beforeAll(async () => {
    t = await startTestApp(QUICK_DELIVERY);
    acme = await createTwoModeTenant(t, 'Acme');
  });
  afterAll(async () => {
    await t.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('delivers a signed event that the standardwebhooks verifier accepts, as GET /v0/events shows it', async () => {
    const r = await receiver();
    const endpoint = await createEndpoint(t, acme.live, r.url, ['webhookEndpoint.*']);
    const [first] = await r.waitFor(1);
    const payload = new Webhook(endpoint.secret).verify(first.body, {
      'webhook-id': first.headers['webhook-id'] as string,
      'webhook-timestamp': first.headers['webhook-timestamp'] as string,
      'webhook-signature': first.headers['webhook-signature'] as string,
    }) as { id: string; type: string; data: { object: { id: string } } };
    expect(payload.type).toBe('webhookEndpoint.created');
    expect(payload.data.object.id).toBe(endpoint.id);
    expect(first.headers['webhook-id']).toBe(payload.id);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(first.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    const event = await t.http().get(`/v0/events/${payload.id}`).set(acme.live.auth).expect(200);
    expect(JSON.parse(first.body)).toEqual(event.body);
    // A signature made with another secret does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(first.body, {
        'webhook-id': first.headers['webhook-id'] as string,
        'webhook-timestamp': first.headers['webhook-timestamp'] as string,
        'webhook-signature': first.headers['webhook-signature'] as string,
      }),
    ).toThrow();
    const list = await eventually(
      () => attempts(t, acme.live, endpoint.id),
      (a) => a.length === 1,
    );
    expect(list[0]).toMatchObject({
      eventId: payload.id,
      attempt: 1,
      succeeded: true,
      statusCode: 200,
      error: null,
      nextRetryAt: null,
    });
  });

  it('the retention sweep deletes an expired event with its deliveries and attempts', async () => {
    const r = await receiver();
    const endpoint = await createEndpoint(t, acme.live, r.url, ['externalBankAccount.deleted']);
    const expired = await emit(t, acme, true, 'externalBankAccount.deleted');
    // An event of a later millisecond: it has a day of retention left when `expired` has none.
    // An event id is a ULID: its first ten characters are when it was made (the sweep reads them).
    const createdAt = decodeTime(expired.id.slice('evt_'.length));
    while (Date.now() <= createdAt + 1) await new Promise((resolve) => setTimeout(resolve, 1));
    const kept = await emit(t, acme, true, 'externalBankAccount.deleted');
    await eventually(
      () => attempts(t, acme.live, endpoint.id),
      (a) => a.length === 2,
    );
    // The sweep as it runs EVENT_RETENTION_DAYS (30) days and 1 ms after `expired` was recorded.
    const now = new Date(createdAt + 30 * 86_400_000 + 1);
    expect(await t.app.get(EventsService).sweep(now)).toBeGreaterThanOrEqual(1);
    await t.http().get(`/v0/events/${expired.id}`).set(acme.live.auth).expect(404);
    await t.http().get(`/v0/events/${kept.id}`).set(acme.live.auth).expect(200);
    expect((await attempts(t, acme.live, endpoint.id)).map((a) => a.eventId)).toEqual([kept.id]);
    const deliveries = (eventId: string) =>
      t.dataSource.query(t.db.sql('SELECT id FROM webhook_deliveries WHERE event_id = ?'), [
        eventId,
      ]);
    expect(await deliveries(expired.id)).toEqual([]);
    expect(await deliveries(kept.id)).toHaveLength(1);
  });

  it('sends only the events an endpoint selects', async () => {
    const r = await receiver();
    const endpoint = await createEndpoint(t, acme.live, r.url, ['plan.*', 'price.updated']);
    await emit(t, acme, true, 'product.created');
    await emit(t, acme, true, 'price.created');
    const wanted = await emit(t, acme, true, 'plan.deleted');
    const alsoWanted = await emit(t, acme, true, 'price.updated');
    const got = await r.waitFor(2);
    await eventually(
      () => attempts(t, acme.live, endpoint.id),
      (a) => a.length === 2,
    );
    expect(got.map((g) => g.headers['webhook-id']).sort()).toEqual(
      [wanted.id, alsoWanted.id].sort(),
    );
  });

  it('retries a failing receiver on the schedule until it recovers, keeping each attempt', async () => {
    const r = await receiver();
    r.respond((_req, n, res) => {
      res.writeHead(n < 2 ? 500 : 204).end();
    });
    const endpoint = await createEndpoint(t, acme.live, r.url, ['product.*']);
    const event = await emit(t, acme, true, 'product.updated');
    const got = await r.waitFor(3);
    expect(new Set(got.map((g) => g.headers['webhook-id']))).toEqual(new Set([event.id]));
    // Each retry waited for its delay (1 s) after the attempt before it.
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(900);
    const list = await eventually(
      () => attempts(t, acme.live, endpoint.id),
      (a) => a.length === 3,
    );
    expect(list.map((a) => [a.attempt, a.succeeded, a.statusCode])).toEqual([
      [3, true, 204],
      [2, false, 500],
      [1, false, 500],
    ]);
    expect(list[1].error).toBe('answered 500');
    expect(list[1].nextRetryAt).not.toBeNull();
    expect(list[0].nextRetryAt).toBeNull();
    const failed = await attempts(t, acme.live, endpoint.id, '&succeeded=false');
    expect(failed.map((a) => a.attempt)).toEqual([2, 1]);
    const byEvent = await attempts(t, acme.live, endpoint.id, `&eventId=${event.id}`);
    expect(byEvent).toHaveLength(3);
    const none = await attempts(
      t,
      acme.live,
      endpoint.id,
      '&eventId=evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC',
    );
    expect(none).toEqual([]);
  });

  it('gives up after the last retry of the schedule', async () => {
    const r = await receiver();
    r.respond((_req, _n, res) => {
      res.writeHead(503).end();
    });
    const endpoint = await createEndpoint(t, acme.live, r.url, ['plan.created']);
    await emit(t, acme, true, 'plan.created');
    const list = await eventually(
      () => attempts(t, acme.live, endpoint.id),
      (a) => a.length === 3 && a[0].nextRetryAt === null,
    );
    expect(list.every((a) => !a.succeeded)).toBe(true);
    // Nothing is due any more for this endpoint.
    const due = await t.dataSource.query(
      `SELECT status, next_attempt_at FROM webhook_deliveries WHERE endpoint_id = '${endpoint.id}'`,
    );
    expect(due).toEqual([{ status: 'failed', next_attempt_at: null }]);
    expect(r.received).toHaveLength(3);
  });

  it('treats a redirect as a failure and never follows it', async () => {
    const target = await receiver();
    const r = await receiver();
    r.respond((_req, _n, res) => {
      res.writeHead(302, { Location: target.url }).end();
    });
    const endpoint = await createEndpoint(t, acme.live, r.url, ['price.deleted']);
    await emit(t, acme, true, 'price.deleted');
    const list = await eventually(
      () => attempts(t, acme.live, endpoint.id),
      (a) => a.length >= 1,
    );
    expect(list[0]).toMatchObject({ succeeded: false, statusCode: 302 });
    expect(list[0].error).toContain('redirect (302) not followed');
    expect(target.received).toHaveLength(0);
  });

  it('counts no answer within the timeout as a failed attempt', async () => {
    const r = await receiver();
    r.respond(() => undefined); // never answers
    const endpoint = await createEndpoint(t, acme.live, r.url, ['billableMetric.created']);
    await emit(t, acme, true, 'billableMetric.created');
    const list = await eventually(
      () => attempts(t, acme.live, endpoint.id),
      (a) => a.length >= 1,
    );
    expect(list[0]).toMatchObject({ succeeded: false, statusCode: null });
    expect(list[0].error).toMatch(/^timeout/);
  });

  it('counts a refused connection as a failed attempt', async () => {
    const r = await receiver();
    const url = r.url;
    await r.close();
    const endpoint = await createEndpoint(t, acme.live, url, ['billableMetric.updated']);
    await emit(t, acme, true, 'billableMetric.updated');
    const list = await eventually(
      () => attempts(t, acme.live, endpoint.id),
      (a) => a.length >= 1,
    );
    expect(list[0].error).toMatch(/ECONNREFUSED/);
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const r = await receiver();
    const endpoint = await createEndpoint(t, acme.test, r.url, ['externalBankAccount.*']);
    const rotated = await t
      .http()
      .post(`/v0/webhookEndpoints/${endpoint.id}/rotateSecret`)
      .set(acme.test.auth)
      .expect(200);
    const event = await emit(t, acme, false, 'externalBankAccount.verified');
    const [got] = await r.waitFor(1);
    const headers = {
      'webhook-id': got.headers['webhook-id'] as string,
      'webhook-timestamp': got.headers['webhook-timestamp'] as string,
      'webhook-signature': got.headers['webhook-signature'] as string,
    };
    expect(headers['webhook-id']).toBe(event.id);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [endpoint.secret, rotated.body.secret as string]) {
      expect(new Webhook(secret).verify(got.body, headers)).toMatchObject({ id: event.id });
    }
  });

  it('keeps deliveries within the mode and organization of the event', async () => {
    const other = await createTwoModeTenant(t, 'Other');
    const live = await receiver();
    const test = await receiver();
    const foreign = await receiver();
    await createEndpoint(t, acme.live, live.url, ['plan.updated']);
    await createEndpoint(t, acme.test, test.url, ['plan.updated']);
    await createEndpoint(t, other.live, foreign.url, ['plan.updated']);
    const liveEvent = await emit(t, acme, true, 'plan.updated');
    const testEvent = await emit(t, acme, false, 'plan.updated');
    const [l] = await live.waitFor(1);
    const [tt] = await test.waitFor(1);
    expect(l.headers['webhook-id']).toBe(liveEvent.id);
    expect(tt.headers['webhook-id']).toBe(testEvent.id);
    // One more event each, so anything misrouted would have arrived by the time these do.
    await emit(t, acme, true, 'plan.updated');
    await emit(t, other, true, 'plan.updated');
    await live.waitFor(2);
    await foreign.waitFor(1);
    expect(live.received).toHaveLength(2);
    expect(test.received).toHaveLength(1);
    expect(foreign.received).toHaveLength(1);
    expect(JSON.parse(tt.body).livemode).toBe(false);
  });

  it('sends nothing to a disabled endpoint, and cancels what it still had to receive', async () => {
    const watcher = await receiver();
    const r = await receiver();
    r.respond((_req, _n, res) => {
      res.writeHead(500).end();
    });
    const endpoint = await createEndpoint(t, acme.live, r.url, ['plan.deleted', 'price.deleted']);
    await createEndpoint(t, acme.live, watcher.url, ['price.deleted']);
    await emit(t, acme, true, 'plan.deleted');
    // The first attempt failed and is on record: a retry is due a second later.
    await eventually(
      () => attempts(t, acme.live, endpoint.id),
      (a) => a.length === 1,
    );
    await t
      .http()
      .patch(`/v0/webhookEndpoints/${endpoint.id}`)
      .set(acme.live.auth)
      .send({ status: 'disabled' })
      .expect(200);
    const pending = await t.dataSource.query(
      `SELECT status FROM webhook_deliveries WHERE endpoint_id = '${endpoint.id}'`,
    );
    expect(pending).toEqual([{ status: 'canceled' }]);
    await emit(t, acme, true, 'price.deleted');
    await watcher.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // past the retry delay (1 s)
    expect(r.received).toHaveLength(1);
  });

  it('keeps an attempt in flight when its endpoint is disabled, and retries nothing after it', async () => {
    const r = await receiver();
    // The first request succeeds, the second fails; each answers 800 ms after it arrives.
    r.respond((_req, n, res) => {
      setTimeout(() => res.writeHead(n === 0 ? 200 : 500).end(), 800);
    });
    const endpoint = await createEndpoint(t, acme.live, r.url, ['plan.deleted']);
    const disable = (status: 'enabled' | 'disabled') =>
      t
        .http()
        .patch(`/v0/webhookEndpoints/${endpoint.id}`)
        .set(acme.live.auth)
        .send({ status })
        .expect(200);
    const deliveries = () =>
      t.dataSource.query<{ status: string }[]>(
        `SELECT status FROM webhook_deliveries WHERE endpoint_id = '${endpoint.id}' ORDER BY id`,
      );

    await emit(t, acme, true, 'plan.deleted');
    await r.waitFor(1); // arrived, not yet answered
    await disable('disabled');
    const [succeeded] = await eventually(
      () => attempts(t, acme.live, endpoint.id),
      (a) => a.length === 1,
    );
    expect(succeeded).toMatchObject({ attempt: 1, succeeded: true, statusCode: 200 });
    expect(await deliveries()).toEqual([{ status: 'succeeded' }]);

    await disable('enabled');
    await emit(t, acme, true, 'plan.deleted');
    await r.waitFor(2);
    await disable('disabled');
    const all = await eventually(
      () => attempts(t, acme.live, endpoint.id),
      (a) => a.length === 2,
    );
    const failed = all.find((a) => !a.succeeded);
    expect(failed).toMatchObject({ attempt: 1, statusCode: 500, nextRetryAt: null });
    await new Promise((resolve) => setTimeout(resolve, 1500)); // past the retry delay (1 s)
    expect(r.received).toHaveLength(2);
    expect((await deliveries()).map((d) => d.status).sort()).toEqual(['canceled', 'succeeded']);
  });

  it('holds at most WEBHOOK_ENDPOINT_CONCURRENCY attempts to a slow endpoint, and others go on', async () => {
    const slow = await receiver();
    let open = 0;
    let mostOpen = 0;
    slow.respond((_req, _n, res) => {
      open++;
      mostOpen = Math.max(mostOpen, open);
      setTimeout(() => {
        open--;
        res.writeHead(200).end();
      }, 700);
    });
    const fast = await receiver();
    await createEndpoint(t, acme.live, slow.url, ['product.created']);
    await createEndpoint(t, acme.live, fast.url, ['plan.created']);
    for (let i = 0; i < 6; i++) await emit(t, acme, true, 'product.created');
    await slow.waitFor(1);
    await emit(t, acme, true, 'plan.created');
    await fast.waitFor(1);
    // The fast endpoint's event went out while the slow one still had events waiting.
    expect(slow.received.length).toBeLessThan(6);
    await slow.waitFor(6);
    expect(mostOpen).toBe(2);
  });

  it('holds no more connections than attempts to a receiver that answers 200 and trickles its body', async () => {
    const tenant = await createTwoModeTenant(t, 'Trickle');
    const r = await receiver();
    let open = 0;
    let mostOpen = 0;
    r.respond((_req, _n, res) => {
      open++;
      mostOpen = Math.max(mostOpen, open);
      res.writeHead(200);
      const trickle = setInterval(() => res.write('x'), 100);
      res.on('close', () => {
        clearInterval(trickle);
        open--;
      });
    });
    const endpoint = await createEndpoint(t, tenant.live, r.url, ['product.created']);
    for (let i = 0; i < 6; i++) await emit(t, tenant, true, 'product.created');
    // Each attempt lasts until the service cuts the body at its timeout (2 s): three rounds.
    const list = await eventually(
      () => attempts(t, tenant.live, endpoint.id),
      (a) => a.length === 6,
      30_000,
    );
    expect(list.every((a) => a.succeeded && a.statusCode === 200)).toBe(true);
    // WEBHOOK_ENDPOINT_CONCURRENCY (2): the trickled bodies do not free their slots early.
    expect(mostOpen).toBe(2);
  });
});

describe(`an endpoint failing for WEBHOOK_DISABLE_AFTER_SECONDS (${TEST_DIALECT})`, () => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_DISABLE_AFTER_SECONDS: '3',
    });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('is disabled with a webhookEndpoint.updated event by the system, which other endpoints receive', async () => {
    const tenant = await createTwoModeTenant(t, 'Failing');
    const dead = await startReceiver();
    const watcher = await startReceiver();
    receivers.push(dead, watcher);
    dead.respond((_req, _n, res) => {
      res.writeHead(500).end();
    });
    const endpoint = await createEndpoint(t, tenant.live, dead.url, ['product.*']);
    await createEndpoint(t, tenant.live, watcher.url, ['webhookEndpoint.updated']);
    await emit(t, tenant, true, 'product.created');
    const [notice] = await watcher.waitFor(1, 30_000);
    const event = JSON.parse(notice.body);
    expect(event).toMatchObject({
      type: 'webhookEndpoint.updated',
      data: {
        object: { id: endpoint.id, status: 'disabled' },
        previousAttributes: { status: 'enabled' },
      },
      request: null,
      actor: { type: 'system', id: null },
    });
    const read = await t.http().get(`/v0/webhookEndpoints/${endpoint.id}`).set(tenant.live.auth);
    expect(read.body.status).toBe('disabled');
    // It failed every attempt for at least 3 seconds: four attempts a second apart at least.
    const list = await attempts(t, tenant.live, endpoint.id);
    expect(list.length).toBeGreaterThanOrEqual(4);
    expect(list.every((a) => !a.succeeded)).toBe(true);
    // The attempt that disabled it (the newest; the schedule had retries left) plans none.
    expect(list[0].nextRetryAt).toBeNull();
    expect(list.slice(1).every((a) => a.nextRetryAt !== null)).toBe(true);
    const count = dead.received.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(dead.received).toHaveLength(count);
  });

  it('is not disabled when it recovers in time: a success ends the failing streak', async () => {
    const tenant = await createTwoModeTenant(t, 'Recovering');
    const flaky = await startReceiver();
    receivers.push(flaky);
    // Fails the first attempt of each event, then answers 200.
    const seen = new Set<string>();
    flaky.respond((req, _n, res) => {
      const id = req.headers['webhook-id'] as string;
      const first = !seen.has(id);
      seen.add(id);
      res.writeHead(first ? 500 : 200).end();
    });
    const endpoint = await createEndpoint(t, tenant.live, flaky.url, ['plan.*']);
    for (let i = 0; i < 3; i++) {
      await emit(t, tenant, true, 'plan.created');
      await flaky.waitFor(2 * (i + 1));
    }
    const read = await t.http().get(`/v0/webhookEndpoints/${endpoint.id}`).set(tenant.live.auth);
    expect(read.body.status).toBe('enabled');
  });
});
