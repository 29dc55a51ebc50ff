import { createTwoModeTenant, TwoModeTenant } from '../helpers/modes';
import { runCli } from '../helpers/processes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TEST_ENCRYPTION_KEY, TestApp, startTestApp } from '../helpers/test-app';
import { accountEvents, sandboxAccount, verifiedWebhook } from '../helpers/verification';
import { WebhookReceiver, eventually, startReceiver } from '../helpers/webhook-receiver';
import { createEndpoint } from '../webhooks/support';

const CLI_TIMEOUT = 240_000;

/**
 * Live mode's verification (docs/verification.md): an operator lists the accounts waiting and
 * verifies or rejects each through the real command line (a child process on the same
 * database), and each decision is an event with actor `operator` that the running service
 * delivers to the organization's webhook endpoint.
 */
describe(`the operator's verification routine on the command line (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acme: TwoModeTenant;
  let other: TwoModeTenant;
  let receiver: WebhookReceiver;
  let secret: string;
  /** Live accounts of Acme (oldest first), of Other, and a test-mode one of Acme. */
  let a1: any;
  let a2: any;
  let b1: any;
  let testAccount: any;
  const numbers: string[] = [];

  const cli = (args: string[]) =>
    runCli(args, {
      DATABASE_URL: t.database.url,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
    });

  /** The ETag of an account as its owner reads it: what `pending` shows and a decision names. */
  async function etag(who: { auth: { Authorization: string } }, id: string): Promise<string> {
    const res = await t.http().get(`/v0/externalAccounts/${id}`).set(who.auth).expect(200);
    return res.headers.etag;
  }

  async function create(who: { auth: { Authorization: string } }, last4: string): Promise<any> {
    const body = sandboxAccount(last4);
    numbers.push(body.accountNumber as string);
    const res = await t.http().post('/v0/externalAccounts').set(who.auth).send(body).expect(201);
    return res.body;
  }

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      SANDBOX_VERIFICATION_DELAY_MS: '100',
      VERIFICATION_POLL_INTERVAL_MS: '100',
    });
    acme = await createTwoModeTenant(t, 'Acme');
    other = await createTwoModeTenant(t, 'Other');
    receiver = await startReceiver();
    ({ secret } = await createEndpoint(t, acme.live, receiver.url, [
      'externalBankAccount.verified',
      'externalBankAccount.errored',
    ]));
    a1 = await create(acme.live, '6789');
    a2 = await create(acme.live, '6790');
    b1 = await create(other.live, '6791');
    testAccount = await create(acme.test, '6792');
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it(
    'lists the live accounts waiting, oldest first, account numbers redacted',
    async () => {
      const [all, acmeOnly, first] = await Promise.all([
        cli(['external-accounts:pending']),
        cli(['external-accounts:pending', '--organization', acme.organizationId]),
        cli(['external-accounts:pending', '--organization', acme.organizationId, '--limit', '1']),
      ]);
      expect([all.code, acmeOnly.code, first.code]).toEqual([0, 0, 0]);
      const ids = (r: typeof all) => (r.json.data as any[]).map((a) => a.id);
      expect(ids(all)).toEqual([a1.id, a2.id, b1.id]);
      expect(all.json.hasMore).toBe(false);
      const withEtags = [
        { ...a1, etag: await etag(acme.live, a1.id) },
        { ...a2, etag: await etag(acme.live, a2.id) },
      ];
      expect(acmeOnly.json).toEqual({ data: withEtags, hasMore: false });
      expect(first.json).toEqual({ data: [withEtags[0]], hasMore: true });
      expect(ids(all)).not.toContain(testAccount.id);
      for (const account of all.json.data as any[]) {
        expect(account.accountNumber).toBe(`****${account.last4}`);
      }
      const printed = JSON.stringify([all.json, acmeOnly.json, first.json]);
      for (const number of numbers) expect(printed).not.toContain(number);
    },
    CLI_TIMEOUT,
  );

  it(
    'verifies and rejects live accounts; each decision is an operator event delivered by webhook',
    async () => {
      const verified = await cli([
        'external-accounts:verify',
        '--id',
        a1.id,
        '--etag',
        await etag(acme.live, a1.id),
      ]);
      expect(verified.code).toBe(0);
      expect(verified.json).toMatchObject({ id: a1.id, status: 'verified', statusReason: null });
      const rejected = await cli([
        'external-accounts:reject',
        '--id',
        a2.id,
        '--etag',
        await etag(acme.live, a2.id),
        '--reason',
        'account_closed',
      ]);
      expect(rejected.code).toBe(0);
      expect(rejected.json).toMatchObject({
        id: a2.id,
        status: 'errored',
        statusReason: 'account_closed',
      });
      for (const [account, json] of [
        [a1, verified.json],
        [a2, rejected.json],
      ]) {
        const read = await t
          .http()
          .get(`/v0/externalAccounts/${account.id}`)
          .set(acme.live.auth)
          .expect(200);
        expect(read.body).toEqual(json);
      }

      const got = await receiver.waitFor(2, 60_000);
      const delivered = got.map((r) => verifiedWebhook(secret, r));
      for (const [account, type, previousAttributes] of [
        [a1, 'externalBankAccount.verified', { status: 'pending' }],
        [a2, 'externalBankAccount.errored', { status: 'pending', statusReason: null }],
      ] as const) {
        const [event] = (await accountEvents(t, acme.live, account.id)).filter(
          (e) => e.type === type,
        );
        expect(event).toMatchObject({
          livemode: true,
          actor: { type: 'operator', id: null },
          request: null,
          data: { previousAttributes },
        });
        expect(delivered.find((e) => e.id === event.id)).toEqual(event);
      }
      const pending = await cli(['external-accounts:pending']);
      expect((pending.json.data as any[]).map((a) => a.id)).toEqual([b1.id]);
      for (const number of numbers) expect(JSON.stringify(delivered)).not.toContain(number);
    },
    CLI_TIMEOUT,
  );

  it(
    'answers clearly, and changes nothing, for an id it cannot decide',
    async () => {
      // `verify` given the --reason of `reject`: a usage error, not a verification.
      const b1Etag = await etag(other.live, b1.id);
      const misTyped = await cli([
        'external-accounts:verify',
        '--id',
        b1.id,
        '--etag',
        b1Etag,
        '--reason',
        'closed',
      ]);
      expect(misTyped.code).toBe(2); // and b1's events below show no verification
      const noEtag = await cli(['external-accounts:verify', '--id', b1.id]);
      expect(noEtag.code).toBe(2);
      const [unknown, malformed, testMode, decided, badReason, noId] = await Promise.all([
        cli([
          'external-accounts:verify',
          '--id',
          'eba_00000000000000000000000000',
          '--etag',
          b1Etag,
        ]),
        cli(['external-accounts:verify', '--id', 'nope', '--etag', b1Etag]),
        cli([
          'external-accounts:verify',
          '--id',
          testAccount.id,
          '--etag',
          await etag(acme.test, testAccount.id),
        ]),
        cli([
          'external-accounts:reject',
          '--id',
          b1.id,
          '--etag',
          b1Etag,
          '--reason',
          'no_account',
        ]).then(() => cli(['external-accounts:verify', '--id', b1.id, '--etag', b1Etag])),
        cli(['external-accounts:reject', '--id', b1.id, '--etag', b1Etag, '--reason', 'closed']),
        cli(['external-accounts:verify', '--etag', b1Etag]),
      ]);
      expect([unknown.code, unknown.json]).toEqual([
        1,
        expect.objectContaining({ error: 'not_found', code: 'RESOURCE_NOT_FOUND' }),
      ]);
      expect([malformed.code, malformed.json?.error]).toEqual([1, 'not_found']);
      expect([testMode.code, testMode.json?.error]).toEqual([1, 'not_found']);
      expect(testMode.json.message).toContain('test-mode accounts are verified by the sandbox');
      expect([decided.code, decided.json]).toEqual([
        1,
        expect.objectContaining({ error: 'conflict', code: 'ACCOUNT_NOT_PENDING' }),
      ]);
      expect(decided.json.message).toContain('errored, not pending');
      expect([badReason.code, noId.code]).toEqual([2, 2]);

      // The test-mode account was left to the sandbox, which decided it as always.
      const read = await eventually(
        () =>
          t.http().get(`/v0/externalAccounts/${testAccount.id}`).set(acme.test.auth).expect(200),
        (r) => r.body.status !== 'pending',
      );
      expect(read.body.status).toBe('verified');
      expect((await accountEvents(t, acme.test, testAccount.id)).map((e) => e.actor.type)).toEqual([
        'apiKey',
        'system',
      ]);
      expect((await accountEvents(t, other.live, b1.id)).map((e) => e.type)).toEqual([
        'externalBankAccount.created',
        'externalBankAccount.errored',
      ]);
    },
    CLI_TIMEOUT,
  );

  it(
    'puts a resubmitted live account back in the queue for the operator',
    async () => {
      await t
        .http()
        .patch(`/v0/externalAccounts/${a2.id}`)
        .set(acme.live.auth)
        .send({ status: 'new' })
        .expect(200);
      const pending = await cli([
        'external-accounts:pending',
        '--organization',
        acme.organizationId,
      ]);
      expect((pending.json.data as any[]).map((a) => a.id)).toEqual([a2.id]);
      const shown = (pending.json.data as any[])[0].etag as string;
      expect(shown).toBe(await etag(acme.live, a2.id));
      const verified = await cli(['external-accounts:verify', '--id', a2.id, '--etag', shown]);
      expect(verified.json).toMatchObject({ status: 'verified', statusReason: null });
      expect((await accountEvents(t, acme.live, a2.id)).map((e) => e.type)).toEqual([
        'externalBankAccount.created',
        'externalBankAccount.errored',
        'externalBankAccount.updated',
        'externalBankAccount.verified',
      ]);
    },
    CLI_TIMEOUT,
  );

  it(
    'puts a verified live account whose holder changes back to pending, verified again (docs/api.md §5.5)',
    async () => {
      for (const change of [
        { accountHolderName: 'Eve After Verification' },
        { accountHolderType: 'company' },
      ]) {
        const before = await t.http().get(`/v0/externalAccounts/${a1.id}`).set(acme.live.auth);
        expect(before.body.status).toBe('verified');
        const res = await t
          .http()
          .patch(`/v0/externalAccounts/${a1.id}`)
          .set(acme.live.auth)
          .send(change)
          .expect(200);
        expect(res.body).toMatchObject({ ...change, status: 'pending', statusReason: null });
        const pending = await cli([
          'external-accounts:pending',
          '--organization',
          acme.organizationId,
        ]);
        expect((pending.json.data as any[]).map((a) => a.id)).toEqual([a1.id]);
        const again = await cli([
          'external-accounts:verify',
          '--id',
          a1.id,
          '--etag',
          (pending.json.data as any[])[0].etag,
        ]);
        expect(again.json).toMatchObject({ ...change, status: 'verified' });
      }
      // The same name again changes nothing: no new submission.
      const same = await t
        .http()
        .patch(`/v0/externalAccounts/${a1.id}`)
        .set(acme.live.auth)
        .send({ accountHolderName: 'Eve After Verification' })
        .expect(200);
      expect(same.body.status).toBe('verified');
    },
    CLI_TIMEOUT,
  );

  it(
    'refuses a decision on details the operator was not shown (ACCOUNT_CHANGED), changing nothing',
    async () => {
      const account = await create(acme.live, '6793');
      const pending = await cli([
        'external-accounts:pending',
        '--organization',
        acme.organizationId,
      ]);
      const listed = (pending.json.data as any[]).find((a) => a.id === account.id);
      expect(listed.accountHolderName).toBe(account.accountHolderName);
      // The holder changes between the listing and the decision.
      await t
        .http()
        .patch(`/v0/externalAccounts/${account.id}`)
        .set(acme.live.auth)
        .send({ accountHolderName: 'Eve After Listing' })
        .expect(200);
      for (const args of [
        ['external-accounts:verify', '--id', account.id, '--etag', listed.etag],
        [
          'external-accounts:reject',
          '--id',
          account.id,
          '--etag',
          listed.etag,
          '--reason',
          'rejected',
        ],
      ]) {
        const refused = await cli(args);
        expect([refused.code, refused.json]).toEqual([
          1,
          expect.objectContaining({ error: 'conflict', code: 'ACCOUNT_CHANGED' }),
        ]);
      }
      const read = await t.http().get(`/v0/externalAccounts/${account.id}`).set(acme.live.auth);
      expect(read.body).toMatchObject({
        status: 'pending',
        accountHolderName: 'Eve After Listing',
      });
      const decided = await cli([
        'external-accounts:verify',
        '--id',
        account.id,
        '--etag',
        read.headers.etag,
      ]);
      expect([decided.code, decided.json.status]).toEqual([0, 'verified']);
    },
    CLI_TIMEOUT,
  );
});
