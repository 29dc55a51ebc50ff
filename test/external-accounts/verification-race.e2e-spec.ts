import { ExternalBankAccount } from '../../src/external-accounts/entities/external-bank-account.entity';
import { SandboxVerifier } from '../../src/external-accounts/verification/sandbox.verifier';
import { VerificationService } from '../../src/external-accounts/verification/verification.service';
import { createTwoModeTenant, TwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { accountEvents, decided, gate, sandboxAccount } from '../helpers/verification';
import { eventually } from '../helpers/webhook-receiver';

/**
 * A resubmission racing a verification that is still running (docs/verification.md): the
 * sandbox is held by the test at chosen points, so the race happens the same way every time.
 *
 * 1. The first verification of submission 1 is held; its lease (1 second) runs out, and the
 *    worker claims the account again and verifies it: the held one is now stale.
 * 2. The client resubmits (submission 2), whose verification is held in its turn.
 * 3. The stale verification of submission 1 lets go with another outcome (errored): dropped, the
 *    account stays pending for submission 2.
 * 4. Submission 2's verification lets go: verified, once.
 */
describe(`a resubmission racing a running verification (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let org: TwoModeTenant;

  beforeAll(async () => {
    t = await startTestApp({
      SANDBOX_VERIFICATION_DELAY_MS: '50',
      VERIFICATION_POLL_INTERVAL_MS: '50',
      VERIFICATION_LEASE_SECONDS: '1',
      WEBHOOK_DISPATCHER: 'off',
    });
    org = await createTwoModeTenant(t, 'Race');
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t.close();
  });

  it('drops the older outcome: an older verification never overwrites a newer submission', async () => {
    const sandbox = t.app.get(SandboxVerifier);
    const service = t.app.get(VerificationService);
    const real = sandbox.decide.bind(sandbox);
    const firstStarted = gate();
    const releaseFirst = gate();
    const secondStarted = gate();
    const releaseSecond = gate();
    // Told apart by its holder's name, known before the account exists.
    const holder = 'Held by the race test';
    let target = '';
    let heldFirst = false;
    const decide = jest
      .spyOn(sandbox, 'decide')
      .mockImplementation(async (account: ExternalBankAccount) => {
        if (account.accountHolderName !== holder) return real(account);
        if (account.verificationSubmission === 1 && !heldFirst) {
          heldFirst = true;
          firstStarted.open();
          await releaseFirst.opened;
          // Not what the sandbox says for this number: were it written, it would show.
          return { status: 'errored', reason: 'account_closed' };
        }
        if (account.verificationSubmission === 2) {
          secondStarted.open();
          await releaseSecond.opened;
        }
        return real(account);
      });
    const recorded: { submission: number; written: boolean }[] = [];
    const record = service.recordOutcome.bind(service);
    jest.spyOn(service, 'recordOutcome').mockImplementation(async (claimed, outcome) => {
      const after = await record(claimed, outcome);
      if (claimed.accountHolderName === holder) {
        recorded.push({ submission: claimed.verificationSubmission, written: after !== null });
      }
      return after;
    });

    try {
      const body = sandboxAccount('4321', { accountHolderName: holder });
      const res = await t.http().post('/v0/externalAccounts').set(org.test.auth).send(body);
      expect(res.status).toBe(201);
      target = res.body.id;
      const id = target;

      // 1. Held; after the lease the worker claims it again and that verification decides.
      await firstStarted.opened;
      expect((await decided(t, org.test, id)).status).toBe('verified');
      // (The spy notes the write once its transaction has returned, maybe after a GET sees it.)
      const written = () => Promise.resolve(recorded.filter((r) => r.written).length);
      await eventually(written, (n) => n === 1);
      expect(recorded).toEqual([{ submission: 1, written: true }]);

      // 2. The resubmission: submission 2, its verification held.
      const resubmitted = await t
        .http()
        .patch(`/v0/externalAccounts/${id}`)
        .set(org.test.auth)
        .send({ status: 'new' })
        .expect(200);
      expect(resubmitted.body.status).toBe('pending');
      await secondStarted.opened;

      // 3. The stale verification of submission 1 ends: its outcome is dropped.
      releaseFirst.open();
      await eventually(
        () => Promise.resolve(recorded.filter((r) => r.submission === 1).length),
        (n) => n === 2,
      );
      expect(recorded).toEqual([
        { submission: 1, written: true },
        { submission: 1, written: false },
      ]);
      const pending = await t
        .http()
        .get(`/v0/externalAccounts/${id}`)
        .set(org.test.auth)
        .expect(200);
      expect(pending.body).toEqual(resubmitted.body);

      // 4. Submission 2's verification decides, once (a claim retried after its lease too
      // would be dropped).
      releaseSecond.open();
      expect(await decided(t, org.test, id)).toMatchObject({
        status: 'verified',
        statusReason: null,
      });
      await eventually(written, (n) => n === 2);
      const events = await accountEvents(t, org.test, id);
      expect(events.map((e) => [e.type, e.actor.type])).toEqual([
        ['externalBankAccount.created', 'apiKey'],
        ['externalBankAccount.verified', 'system'],
        ['externalBankAccount.updated', 'apiKey'],
        ['externalBankAccount.verified', 'system'],
      ]);
      expect(recorded.filter((r) => r.written)).toEqual([
        { submission: 1, written: true },
        { submission: 2, written: true },
      ]);
      // The first claim was held past its lease and claimed again: at least three asks.
      expect(decide.mock.calls.filter(([a]) => a.id === id).length).toBeGreaterThanOrEqual(3);
    } finally {
      releaseFirst.open();
      releaseSecond.open();
    }
  });
});
