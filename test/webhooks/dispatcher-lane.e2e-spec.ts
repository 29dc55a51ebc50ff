import { EntityManager } from 'typeorm';
import { FIRST } from '../../src/database/database';
import { createTwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { WebhookReceiver, startReceiver } from '../helpers/webhook-receiver';
import { createEndpoint, emit } from './support';

/** A promise and the function that settles it. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/**
 * The webhook dispatcher's units of work do not wait behind the requests' (UnitOptions.first in
 * src/database/database.ts): on SQLite they go before the units waiting for the one connection;
 * on PostgreSQL they run on a pool of their own, so that a pool that every request is queueing
 * for does not hold up delivery.
 */
describe(`the webhook dispatcher's units of work (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      DATABASE_POOL_SIZE: '2',
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  /** Starts a transaction that holds its connection (or SQLite's lock) until `until` settles. */
  function holding(until: Promise<void>): { started: Promise<void>; done: Promise<void> } {
    const started = gate();
    const done = t.db.transaction(async (m) => {
      await m.query('SELECT 1');
      started.open();
      await until;
    });
    return { started: started.opened, done };
  }

  /** `application_name` of the connection a unit runs on (PostgreSQL). */
  const applicationName = async (m: EntityManager) =>
    (
      await m.query<{ name: string }[]>('SELECT current_setting($1) AS name', ['application_name'])
    )[0].name;

  if (TEST_DIALECT === 'sqlite') {
    it('go before the units waiting for the connection, in the order asked among themselves', async () => {
      const release = gate();
      const held = holding(release.opened);
      await held.started;
      const order: string[] = [];
      const unit = (name: string, options = {}) =>
        t.db.transaction(
          async (m) => {
            await m.query('SELECT 1');
            order.push(name);
          },
          undefined,
          options,
        );
      const waiting = [unit('request 1'), unit('request 2'), unit('dispatcher 1', FIRST)];
      waiting.push(unit('request 3'), unit('dispatcher 2', FIRST));
      release.open();
      await Promise.all([held.done, ...waiting]);
      expect(order).toEqual([
        'dispatcher 1',
        'dispatcher 2',
        'request 1',
        'request 2',
        'request 3',
      ]);
    });
  } else {
    it('run on a pool of their own, while every connection of the requests is held', async () => {
      const release = gate();
      const held = [holding(release.opened), holding(release.opened)];
      await Promise.all(held.map((h) => h.started));
      let requestDone = false;
      const request = t.db
        .transaction((m) => applicationName(m))
        .finally(() => (requestDone = true));

      const dispatcher = await t.db.transaction((m) => applicationName(m), undefined, FIRST);

      expect(dispatcher).toBe('billing-api dispatcher');
      expect(requestDone).toBe(false);
      release.open();
      await Promise.all(held.map((h) => h.done));
      expect(await request).toBe('billing-api');
    });

    it('share the pool of the requests where the dispatcher is off (no pool is opened for them)', async () => {
      const off = await startTestApp({ WEBHOOK_DISPATCHER: 'off' });
      try {
        expect(await off.db.transaction((m) => applicationName(m), undefined, FIRST)).toBe(
          'billing-api',
        );
      } finally {
        await off.close();
      }
    });

    it('deliver a committed event while the requests hold every connection', async () => {
      const acme = await createTwoModeTenant(t, 'Acme');
      await createEndpoint(t, acme.live, receiver.url, ['product.created']);
      const release = gate();
      const first = holding(release.opened);
      await first.started;
      // The event commits on the second connection, which a request then takes at once.
      const event = await emit(t, acme, true);
      const second = holding(release.opened);
      try {
        await second.started;
        const [received] = await receiver.waitFor(1, 15_000);
        expect(received.headers['webhook-id']).toBe(event.id);
      } finally {
        release.open();
        await Promise.all([first.done, second.done]);
      }
    });
  }
});
