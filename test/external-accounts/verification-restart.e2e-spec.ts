import { RunningServer, startServer } from '../helpers/processes';
import { TEST_DIALECT, TestDatabase, createTestDatabase } from '../helpers/test-database';
import { TEST_ENCRYPTION_KEY } from '../helpers/test-app';
import { sandboxAccount, verifiedWebhook } from '../helpers/verification';
import { WebhookReceiver, eventually, startReceiver } from '../helpers/webhook-receiver';

const API_KEY = `sk_test_${'V'.repeat(32)}`;

/**
 * Verification survives the process (docs/verification.md): its state is the account's row, so
 * an account left pending by a process that was killed (SIGKILL) or stopped (SIGTERM) is decided
 * after the restart, by the real service in a child process, and its event is delivered.
 */
describe(`verification across a restart (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  const servers: RunningServer[] = [];

  const env = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: database.url,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    NODE_ENV: 'test',
    BOOTSTRAP_API_KEY: API_KEY,
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '100',
    SANDBOX_VERIFICATION_DELAY_MS: '300',
    VERIFICATION_POLL_INTERVAL_MS: '100',
    ...extra,
  });

  async function start(extra: Record<string, string> = {}): Promise<RunningServer> {
    const server = await startServer(env(extra));
    servers.push(server);
    return server;
  }

  async function api(server: RunningServer, method: string, path: string, body?: unknown) {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  beforeEach(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      if (s.child.exitCode === null) await s.stop('SIGKILL');
    }
    await receiver.close();
    await database.drop();
  });

  it.each<[NodeJS.Signals]>([['SIGKILL'], ['SIGTERM']])(
    'decides, after a restart, the accounts a process stopped with %s left pending',
    async (signal) => {
      // The first process has its worker off: it stops with the accounts pending, exactly as a
      // process stopped between the create and the sandbox's due time would.
      const first = await start({ VERIFICATION_WORKER: 'off' });
      const endpoint = await api(first, 'POST', '/v0/webhookEndpoints', {
        url: receiver.url,
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
      const got = await receiver.waitFor(2, 60_000);
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
      expect(receiver.received).toHaveLength(2);
    },
    180_000,
  );
});
