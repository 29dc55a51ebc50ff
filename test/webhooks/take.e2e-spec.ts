import { WebhookDeliveriesRepository } from '../../src/webhooks/webhook-deliveries.repository';
import { createTwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { createEndpoint, emit } from './support';

/**
 * A claim reads the due deliveries without locking them, chooses what it may send, and then
 * leases only those (`take`): rows it read and left are not held, so another instance's claim
 * at the same moment takes them; a row another claim holds, or has just leased, is not taken.
 */
describe(`webhook deliveries taken by a claim (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let ids: string[];
  let repository: WebhookDeliveriesRepository;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_DISPATCHER: 'off', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    repository = t.app.get(WebhookDeliveriesRepository);
    const acme = await createTwoModeTenant(t, 'Acme');
    await createEndpoint(t, acme.live, 'http://127.0.0.1:9/hooks', ['product.created']);
    for (let i = 0; i < 10; i++) await emit(t, acme, true);
    const due = await t.db.transaction((m) => repository.dueCandidates(m, new Date(), 100, []));
    ids = due.map((d) => d.id);
  });
  afterAll(() => t.close());

  const lease = () => new Date(Date.now() + 60_000);

  it('reads the due deliveries oldest first, and leases only the ones chosen', async () => {
    expect(ids).toHaveLength(10);
    const first = await t.db.transaction((m) =>
      repository.take(m, ids.slice(0, 2), new Date(), lease(), 'first'),
    );
    expect(first.map((d) => d.id).sort()).toEqual(ids.slice(0, 2).sort());
    expect(first.every((d) => d.leaseToken === 'first')).toBe(true);

    // The two leased are no longer due; the eight read and left are.
    const due = await t.db.transaction((m) => repository.dueCandidates(m, new Date(), 100, []));
    expect(due.map((d) => d.id)).toEqual(ids.slice(2));
    const second = await t.db.transaction((m) =>
      repository.take(m, ids, new Date(), lease(), 'second'),
    );
    expect(second.map((d) => d.id).sort()).toEqual(ids.slice(2).sort());
  });

  if (TEST_DIALECT === 'postgres') {
    it('skips, without waiting, the rows a claim still in progress holds', async () => {
      const fresh = await t.db.transaction(async (m) => {
        await m.query(
          `UPDATE "webhook_deliveries" SET "next_attempt_at" = now(), "lease_token" = NULL WHERE "id" = ANY($1)`,
          [ids],
        );
        return repository.dueCandidates(m, new Date(Date.now() + 1000), 100, []);
      });
      expect(fresh).toHaveLength(10);
      const at = new Date(Date.now() + 1000);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let taken!: () => void;
      const tookTwo = new Promise<void>((resolve) => (taken = resolve));
      // One claim takes two and stays open; the other, meanwhile, asks for all ten.
      const first = t.db.transaction(async (m) => {
        const rows = await repository.take(m, ids.slice(0, 2), at, lease(), 'open');
        taken();
        await held;
        return rows;
      });
      await tookTwo;
      const second = await t.db.transaction((m) =>
        repository.take(m, ids, at, lease(), 'meanwhile'),
      );
      release();
      expect((await first).map((d) => d.id).sort()).toEqual(ids.slice(0, 2).sort());
      expect(second.map((d) => d.id).sort()).toEqual(ids.slice(2).sort());
    });
  }
});
