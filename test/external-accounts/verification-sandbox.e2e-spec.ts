import { Writable } from 'node:stream';
import { createTwoModeTenant, TwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import { createAccount } from '../helpers/external-accounts-factory';
import { accountEvents, decided, sandboxAccount, verifiedWebhook } from '../helpers/verification';
import { WebhookReceiver, eventually, startReceiver } from '../helpers/webhook-receiver';
import { createEndpoint } from '../webhooks/support';

/**
 * Test mode's simulated bank (docs/api.md §5.5, docs/verification.md): the service, never the
 * client, decides each account by the last four characters of its number, a short
 * SANDBOX_VERIFICATION_DELAY_MS after it was created or resubmitted. Every outcome is seen by
 * GET and by a real webhook receiver on 127.0.0.1, signature checked.
 */
describe(`sandbox verification in test mode (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let org: TwoModeTenant;
  let receiver: WebhookReceiver;
  let secret: string;
  const logs: string[] = [];
  /** Every account number sent, to look for where it must never be. */
  const numbers: string[] = [];

  beforeAll(async () => {
    const logDestination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    t = await startTestApp(
      {
        LOG_LEVEL: 'info',
        SANDBOX_VERIFICATION_DELAY_MS: '200',
        VERIFICATION_POLL_INTERVAL_MS: '100',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_POLL_INTERVAL_MS: '50',
      },
      { logDestination },
    );
    org = await createTwoModeTenant(t, 'Sandbox');
    receiver = await startReceiver();
    ({ secret } = await createEndpoint(t, org.test, receiver.url, ['externalBankAccount.*']));
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  async function create(body: Record<string, unknown>, who = org.test): Promise<any> {
    numbers.push(body.accountNumber as string);
    const res = await t.http().post('/v0/externalAccounts').set(who.auth).send(body);
    expect({ status: res.status, body: res.body }).toMatchObject({
      status: 201,
      body: { status: 'pending', statusReason: null },
    });
    return res.body;
  }

  /** The events delivered to the receiver for one account, signatures checked, in arrival order. */
  const deliveredFor = (id: string) =>
    receiver.received.map((r) => verifiedWebhook(secret, r)).filter((e) => e.data.object.id === id);

  /** Waits until every one of `events` (by id) has been delivered, and returns them as delivered. */
  async function delivered(id: string, events: any[]): Promise<any[]> {
    const ids = events.map((e) => e.id);
    await eventually(
      () => Promise.resolve(deliveredFor(id).map((e) => e.id)),
      (got) => ids.every((e) => got.includes(e)),
      30_000,
    );
    return ids.map((e) => deliveredFor(id).find((d) => d.id === e));
  }

  it.each<[string, 'verified' | 'errored', string | null]>([
    ['1116', 'errored', 'no_account'],
    ['1113', 'errored', 'account_closed'],
    ['2227', 'errored', 'invalid_account_holder'],
    ['6789', 'verified', null],
    ['1117', 'verified', null],
  ])(
    'decides a number ending in %s: %s (%s), by GET and by webhook',
    async (last4, status, statusReason) => {
      const created = await create(sandboxAccount(last4));
      const after = await decided(t, org.test, created.id);
      expect(after).toEqual({ ...created, status, statusReason, updatedAt: after.updatedAt });
      expect(after.updatedAt >= created.updatedAt).toBe(true);

      const events = await accountEvents(t, org.test, created.id);
      expect(events.map((e) => e.type)).toEqual([
        'externalBankAccount.created',
        `externalBankAccount.${status}`,
      ]);
      const decision = events[1];
      expect(decision).toMatchObject({
        livemode: false,
        actor: { type: 'system', id: null },
        request: null,
        data: {
          object: after,
          previousAttributes:
            status === 'verified'
              ? { status: 'pending' }
              : { status: 'pending', statusReason: null },
        },
      });
      expect(await delivered(created.id, events)).toEqual(events);
    },
  );

  it('decides a resubmission after errored again, with an updated event in between', async () => {
    const created = await create(sandboxAccount('1116'));
    const errored = await decided(t, org.test, created.id);
    expect(errored).toMatchObject({ status: 'errored', statusReason: 'no_account' });

    const resubmitted = await t
      .http()
      .patch(`/v0/externalAccounts/${created.id}`)
      .set(org.test.auth)
      .send({ status: 'new' })
      .expect(200);
    expect(resubmitted.body).toMatchObject({ status: 'pending', statusReason: null });
    const again = await decided(t, org.test, created.id);
    expect(again).toMatchObject({ status: 'errored', statusReason: 'no_account' });

    const events = await accountEvents(t, org.test, created.id);
    expect(events.map((e) => [e.type, e.actor.type])).toEqual([
      ['externalBankAccount.created', 'apiKey'],
      ['externalBankAccount.errored', 'system'],
      ['externalBankAccount.updated', 'apiKey'],
      ['externalBankAccount.errored', 'system'],
    ]);
    expect(events[2].data).toEqual({
      object: resubmitted.body,
      previousAttributes: { status: 'errored', statusReason: 'no_account' },
    });
    expect(events[2].request).toMatchObject({ id: resubmitted.headers['x-request-id'] });
    expect(events[3].data).toEqual({
      object: again,
      previousAttributes: { status: 'pending', statusReason: null },
    });
    expect(await delivered(created.id, events)).toEqual(events);
  });

  it('decides a resubmission after verified again', async () => {
    const created = await create(sandboxAccount('4242'));
    expect((await decided(t, org.test, created.id)).status).toBe('verified');
    await t
      .http()
      .patch(`/v0/externalAccounts/${created.id}`)
      .set(org.test.auth)
      .send({ status: 'new', metadata: { again: true } })
      .expect(200);
    expect(await decided(t, org.test, created.id)).toMatchObject({
      status: 'verified',
      metadata: { again: true },
    });
    const types = (await accountEvents(t, org.test, created.id)).map((e) => e.type);
    expect(types).toEqual([
      'externalBankAccount.created',
      'externalBankAccount.verified',
      'externalBankAccount.updated',
      'externalBankAccount.verified',
    ]);
  });

  it.each(['pending', 'verified', 'errored'])(
    'refuses a client that sets status "%s" itself (400), and the sandbox still decides',
    async (status) => {
      const created = await create(sandboxAccount('1113'));
      const res = await t
        .http()
        .patch(`/v0/externalAccounts/${created.id}`)
        .set(org.test.auth)
        .send({ status });
      expectErrorEnvelope(res, 400, 'validation_error', 'STATUS_SET_BY_VERIFICATION');
      expect(res.body.errors).toEqual([
        {
          field: 'status',
          code: 'status_set_by_verification',
          message: expect.stringContaining('set by the verification process'),
        },
      ]);
      expect(await decided(t, org.test, created.id)).toMatchObject({
        status: 'errored',
        statusReason: 'account_closed',
      });
    },
  );

  it('never decides a live account automatically: it stays pending past the sandbox delay', async () => {
    const live = await create(sandboxAccount('6789'), org.live);
    // A test-mode account submitted after it is decided: the worker has run past the live
    // account's sandbox delay (and several polls) by then.
    const later = await create(sandboxAccount('6789'));
    await decided(t, org.test, later.id);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const res = await t
      .http()
      .get(`/v0/externalAccounts/${live.id}`)
      .set(org.live.auth)
      .expect(200);
    expect(res.body).toEqual(live);
    expect((await accountEvents(t, org.live, live.id)).map((e) => e.type)).toEqual([
      'externalBankAccount.created',
    ]);
    const [row] = await t.dataSource.query(
      t.db.sql('SELECT verification_due_at AS due FROM external_bank_accounts WHERE id = ?'),
      [live.id],
    );
    expect(row.due).toBeNull();
  });

  it('leaves nothing to decide for a deleted account', async () => {
    const created = await create(sandboxAccount('6789'));
    await t.http().delete(`/v0/externalAccounts/${created.id}`).set(org.test.auth).expect(200);
    const [row] = await t.dataSource.query(
      t.db.sql('SELECT verification_due_at AS due FROM external_bank_accounts WHERE id = ?'),
      [created.id],
    );
    expect(row.due).toBeNull();
    const types = (await accountEvents(t, org.test, created.id)).map((e) => e.type);
    // Deleted before the sandbox's delay (or, on a slow machine, just after its decision).
    expect(types.slice(-1)).toEqual(['externalBankAccount.deleted']);
  });

  it('keeps the account number out of every event, webhook and log line', async () => {
    const created = await createAccount(t, org.test);
    await decided(t, org.test, created.id);
    await eventually(
      () => Promise.resolve(deliveredFor(created.id).length),
      (n) => n >= 2,
      30_000,
    );
    expect(logs.some((l) => l.includes('verification decided'))).toBe(true);
    const events = await t.http().get('/v0/events?limit=100').set(org.test.auth).expect(200);
    const everywhere = [...logs, ...receiver.received.map((r) => r.body), events.text];
    for (const number of numbers) {
      expect(everywhere.filter((text) => text.includes(number))).toEqual([]);
    }
  });
});
