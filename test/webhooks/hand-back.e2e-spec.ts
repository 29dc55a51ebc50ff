import { WebhookDeliveriesRepository } from '../../src/webhooks/webhook-deliveries.repository';
import { createTwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { createEndpoint, emit } from './support';

/**
 * A claim that will not make its attempts (the process stops, or their turn would come after the
 * lease) hands its deliveries back as due now. Only those it still holds: a delivery whose lease
 * ran out and that another claim took over stays with that claim.
 */
describe(`webhook deliveries handed back (${TEST_DIALECT})`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_DISPATCHER: 'off', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  });
  afterAll(() => t.close());

  async function deliveryOf(eventId: string): Promise<{ id: string }> {
    const [row]: { id: string }[] = await t.dataSource.query(
      t.db.sql('SELECT "id" FROM "webhook_deliveries" WHERE "event_id" = ?'),
      [eventId],
    );
    return row;
  }

  it('releases the leases still held under the token, and leaves a lease taken over alone', async () => {
    const acme = await createTwoModeTenant(t, 'Acme');
    await createEndpoint(t, acme.live, 'http://127.0.0.1:9/hooks', ['*']);
    const ours = await deliveryOf((await emit(t, acme, true)).id);
    const takenOver = await deliveryOf((await emit(t, acme, true)).id);
    const repository = t.app.get(WebhookDeliveriesRepository);
    const leaseEnd = new Date(Date.now() + 60_000);
    const secondEnd = new Date(leaseEnd.getTime() + 60_000);
    await t.db.transaction(async (m) => {
      const first = await repository.take(
        m,
        [ours.id, takenOver.id],
        new Date(),
        leaseEnd,
        'first-claim',
      );
      expect(first.map((d) => d.id).sort()).toEqual([ours.id, takenOver.id].sort());
      // Still leased: not taken again before the lease ends.
      expect(await repository.take(m, [takenOver.id], new Date(), secondEnd, 'early')).toEqual([]);
      // Past the lease's end, another claim takes it over.
      const second = await repository.take(
        m,
        [takenOver.id],
        new Date(leaseEnd.getTime() + 1),
        secondEnd,
        'second-claim',
      );
      expect(second).toEqual([
        expect.objectContaining({
          id: takenOver.id,
          leaseToken: 'second-claim',
          nextAttemptAt: secondEnd,
        }),
      ]);
    });

    const at = new Date();
    const handed = await t.db.transaction((m) =>
      repository.handBack(
        m,
        [takenOver, ours].map(({ id }) => ({ id, token: 'first-claim' })),
        at,
      ),
    );

    expect(handed).toBe(1);
    const rows = await t.db.read((m) => repository.lockMany(m, [ours.id, takenOver.id]));
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(ours.id)).toMatchObject({ leaseToken: null, nextAttemptAt: at, attempts: 0 });
    expect(byId.get(takenOver.id)).toMatchObject({
      leaseToken: 'second-claim',
      nextAttemptAt: secondEnd,
      attempts: 0,
    });
  });

  it('hands back nothing, and writes nothing, when every lease was taken over', async () => {
    const acme = await createTwoModeTenant(t, 'Other');
    await createEndpoint(t, acme.live, 'http://127.0.0.1:9/hooks', ['*']);
    const delivery = await deliveryOf((await emit(t, acme, true)).id);
    const repository = t.app.get(WebhookDeliveriesRepository);
    const leaseEnd = new Date(Date.now() + 60_000);
    await t.db.transaction((m) => repository.take(m, [delivery.id], new Date(), leaseEnd, 'newer'));
    const handed = await t.db.transaction((m) =>
      repository.handBack(m, [{ id: delivery.id, token: 'older' }], new Date()),
    );
    expect(handed).toBe(0);
    const [row] = await t.db.read((m) => repository.lockMany(m, [delivery.id]));
    expect(row).toMatchObject({ leaseToken: 'newer', nextAttemptAt: leaseEnd });
  });
});
