import { childServices } from '../helpers/child-services';
import { TEST_DIALECT } from '../helpers/test-database';
import { sandboxAccount, verifiedWebhook } from '../helpers/verification';
import { eventually } from '../helpers/webhook-receiver';

const API_KEY = `sk_test_${'V'.repeat(32)}`;

/**
 * Verification survives the process (docs/verification.md): its state is the account's row, so
 * an account left pending by a process that was killed (SIGKILL) or stopped (SIGTERM) is decided
 * after the restart, by the real service in a child process, and its event is delivered.
 */
describe(`verification across a restart (${TEST_DIALECT})`, () => {
  const services = childServices(API_KEY, {
    SANDBOX_VERIFICATION_DELAY_MS: '300',
    VERIFICATION_POLL_INTERVAL_MS: '100',
  });
  const { start, api } = services;
  const receiver = () => services.receiver;

  it.each<[NodeJS.Signals]>([['SIGKILL'], ['SIGTERM']])(
    'decides, after a restart, the accounts a process stopped with %s left pending',
    async (signal) => {
      // The first process has its worker off: it stops with the accounts pending, exactly as a
      // process stopped between the create and the sandbox's due time would.
      const first = await start({ VERIFICATION_WORKER: 'off' });
      const endpoint = await api(first, 'POST', '/v0/webhookEndpoints', {
        url: receiver().url,
        enabledEvents: ['externalBankAccount.verified', 'externalBankAccount.errored'],
      });
      expect(endpoint.status).toBe(201);
      const verified = await api(first, 'POST', '/v0/externalAccounts', sandboxAccount('6789'));
      const errored = await api(first, 'POST', '/v0/externalAccounts', sandboxAccount('2227'));
      expect([verified.status, errored.status]).toEqual([201, 201]);
      // Past the due time, still pending: nobody decided.
      await new Promise((resolve) => setTimeout(resolve, 600));
      const still = await api(first, 'GET', `/v0/externalAccounts/${verified.body.id}`);
      expect(still.body.status).toBe('pending');
      const code = await first.stop(signal);
      if (signal === 'SIGTERM') expect(code).toBe(0);

      const second = await start();
      const got = await receiver().waitFor(2, 60_000);
      const events = got.map((r) => verifiedWebhook(endpoint.body.secret as string, r));
      expect(
        events
          .map((e) => [e.data.object.id, e.type, e.data.object.statusReason, e.actor.type])
          .sort(),
      ).toEqual(
        [
          [verified.body.id, 'externalBankAccount.verified', null, 'system'],
          [errored.body.id, 'externalBankAccount.errored', 'invalid_account_holder', 'system'],
        ].sort(),
      );
      for (const event of events) {
        const read = await eventually(
          () => api(second, 'GET', `/v0/externalAccounts/${event.data.object.id}`),
          (r) => r.body.status !== 'pending',
        );
        expect(read.body).toEqual(event.data.object);
      }
      // One decision each, however many polls ran.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver().received).toHaveLength(2);
    },
    180_000,
  );

  it('drains a backlog of several claims as its verifications end, not one claim per poll interval', async () => {
    // 50 accounts due at once, two and a half claims (VERIFICATION_BATCH is 20), and a poll
    // interval of a minute: the second claim must follow the end of the first one's
    // verifications. Before, a poll that found no room waited the whole interval, so a backlog
    // after a restart drained 20 accounts per interval on PostgreSQL (on SQLite a claim's
    // verifications end before the next poll, which then finds room).
    const first = await start({ VERIFICATION_WORKER: 'off' });
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const created = await api(first, 'POST', '/v0/externalAccounts', sandboxAccount('6789'));
      expect(created.status).toBe(201);
      ids.push(created.body.id as string);
    }
    await first.stop('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 400));

    const second = await start({ VERIFICATION_POLL_INTERVAL_MS: '60000' });
    const pending = async () => {
      const res = await api(second, 'GET', '/v0/externalAccounts?status=pending&limit=100');
      return res.body.pagination.total as number;
    };
    // Well inside the interval: one claim per interval would leave 30 pending for a minute.
    expect(await eventually(pending, (n) => n === 0, 40_000)).toBe(0);
    const verified = await api(second, 'GET', '/v0/externalAccounts?status=verified&limit=100');
    expect((verified.body.data as { id: string }[]).map((a) => a.id).sort()).toEqual(
      [...ids].sort(),
    );
  }, 120_000);
});
