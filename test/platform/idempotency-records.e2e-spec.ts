import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src/common/canonical-json';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import { usAccount } from '../helpers/external-accounts-factory';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Issue 17, finding 1: an idempotency record must not let a reader of the database, without
 * ENCRYPTION_KEY, confirm a guess of an account number (docs/api.md §5.5).
 */
describe(`idempotency records hold nothing that confirms an account number (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  const recordsOf = async (key: string): Promise<Record<string, unknown>[]> =>
    t.dataSource.query(
      `SELECT * FROM idempotency_records WHERE idempotency_key = ${TEST_DIALECT === 'postgres' ? '$1' : '?'}`,
      [key],
    );

  it('stores no unkeyed hash of the request, and still replays and refuses as before', async () => {
    const body = usAccount();
    const accountNumber = String(body.accountNumber);
    const key = `acct-${Date.now()}`;
    const first = await t
      .http()
      .post('/v0/externalAccounts')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send(body)
      .expect(201);

    const [record] = await recordsOf(key);
    expect(record).toBeDefined();
    const stored = JSON.stringify(record);
    // The attacker's guess is right: every unkeyed digest of it that a record could hold.
    const guesses = [
      `POST /v0/externalAccounts\n${canonicalJson(body)}`, // what the record held before
      `POST /v0/externalAccounts\n{}\n${canonicalJson(body)}`,
      canonicalJson(body),
      JSON.stringify(body),
      accountNumber,
    ];
    for (const guess of guesses) expect(stored).not.toContain(sha256(guess));
    expect(stored).not.toContain(accountNumber);
    expect(String(record.request_hash)).toMatch(/^[0-9a-f]{64}$/);

    // The keyed hash still tells a retry from a different request.
    const replay = await t
      .http()
      .post('/v0/externalAccounts')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send(body)
      .expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);

    const other = await t
      .http()
      .post('/v0/externalAccounts')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .send({ ...body, accountNumber: `${accountNumber.slice(0, -1)}9` });
    expectErrorEnvelope(other, 422, 'idempotency_error', 'IDEMPOTENCY_KEY_REUSED');
  });

  it('gives the same request a different stored hash under another ENCRYPTION_KEY', async () => {
    const other = await startTestApp({
      ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    });
    try {
      const otherTenant = await other.createTenant();
      const body = usAccount();
      const key = 'same-request-two-keys';
      await t
        .http()
        .post('/v0/externalAccounts')
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .send(body)
        .expect(201);
      await other
        .http()
        .post('/v0/externalAccounts')
        .set(otherTenant.auth)
        .set('Idempotency-Key', key)
        .send(body)
        .expect(201);
      const [mine] = await recordsOf(key);
      const [theirs] = await other.dataSource.query<{ request_hash: string }[]>(
        `SELECT request_hash FROM idempotency_records WHERE idempotency_key = ${TEST_DIALECT === 'postgres' ? '$1' : '?'}`,
        [key],
      );
      expect(mine.request_hash).not.toBe(theirs.request_hash);
    } finally {
      await other.close();
    }
  });

  it('keeps the signing secret of a replayable answer encrypted, and replays it as sent', async () => {
    const url = 'https://93.184.216.34/hooks';
    const key = `we-${Date.now()}`;
    const send = () =>
      t
        .http()
        .post('/v0/webhookEndpoints')
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .send({ url, enabledEvents: ['*'] });
    const first = await send().expect(201);
    const secret = String(first.body.secret);
    expect(secret).toMatch(/^whsec_/);
    const rotateKey = `${key}-rotate`;
    const rotate = () =>
      t
        .http()
        .post(`/v0/webhookEndpoints/${first.body.id}/rotateSecret`)
        .set(tenant.auth)
        .set('Idempotency-Key', rotateKey);
    const rotated = await rotate().expect(200);
    const newSecret = String(rotated.body.secret);
    expect(newSecret).not.toBe(secret);

    for (const [k, shown] of [
      [key, secret],
      [rotateKey, newSecret],
    ]) {
      const [record] = await recordsOf(k);
      const stored = JSON.stringify(record);
      expect(stored).not.toContain('whsec_');
      expect(stored).not.toContain(shown.slice(6));
      expect(stored).not.toContain(shown.slice(6, 30));
    }

    const replayed = await send().expect(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.text).toBe(first.text);
    const rotatedAgain = await rotate().expect(200);
    expect(rotatedAgain.headers['idempotent-replayed']).toBe('true');
    expect(rotatedAgain.body.secret).toBe(newSecret);
  });
});
