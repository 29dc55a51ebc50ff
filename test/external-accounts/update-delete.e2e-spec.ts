import { etagOf } from '../../src/common/etag';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import { ACCOUNT_KEYS, createAccount, decide } from '../helpers/external-accounts-factory';

const ERRORED_REASON = 'no_account';
/** Replaced by the caller's organization id inside the test. */
const OWN_ORGANIZATION = '<own organization>';

describe(`PATCH and DELETE /v0/externalAccounts/{id} (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant('Acme');
    other = await t.createTenant('Other');
  });
  afterAll(() => t.close());

  const url = (id: string) => `/v0/externalAccounts/${id}`;
  const patch = (id: string, body: unknown, who: TestTenant = tenant) =>
    t
      .http()
      .patch(url(id))
      .set(who.auth)
      .send(body as object);
  const get = (id: string, who: TestTenant = tenant) => t.http().get(url(id)).set(who.auth);
  const del = (id: string, who: TestTenant = tenant) => t.http().delete(url(id)).set(who.auth);

  /**
   * A fresh live account brought to `status` as the service brings it there: an operator's
   * decision (docs/verification.md), never the client's.
   */
  async function accountIn(status: 'pending' | 'verified' | 'errored'): Promise<any> {
    const account = await createAccount(t, tenant);
    if (status === 'pending') return account;
    const decided = await decide(t, account.id, status, ERRORED_REASON);
    expect((await get(account.id).expect(200)).body).toEqual(decided);
    return decided;
  }

  /** The externalBankAccount.* events of one account, oldest first. */
  async function eventsOf(id: string): Promise<any[]> {
    const res = await t
      .http()
      .get('/v0/events?type=externalBankAccount.*&limit=100')
      .set(tenant.auth)
      .expect(200);
    return (res.body.data as any[]).filter((e) => e.data.object.id === id).reverse();
  }

  describe("the seed's sample (section 4.2)", () => {
    it('PATCH with accountHolderType individual and status new answers 200 with status pending', async () => {
      const account = await createAccount(t, tenant, { accountHolderType: 'company' });
      const res = await patch(account.id, {
        accountHolderName: 'Jenny Rosen',
        accountHolderType: 'individual',
        status: 'new',
        metadata: { source: 'seed' },
      }).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(res.body)).toEqual(ACCOUNT_KEYS);
      expect(res.body).toMatchObject({
        id: account.id,
        object: 'externalBankAccount',
        accountHolderName: 'Jenny Rosen',
        accountHolderType: 'individual',
        status: 'pending',
        statusReason: null,
        metadata: { source: 'seed' },
        accountNumber: account.accountNumber,
        last4: account.last4,
      });
      expect((await get(account.id).expect(200)).body).toEqual(res.body);
    });
  });

  describe('status: only "new", a resubmission for verification (docs/api.md §5.5)', () => {
    it.each<[string, 'pending' | 'verified' | 'errored', string, string | null]>([
      ['pending + new -> pending (no-op)', 'pending', 'pending', null],
      ['verified + new -> pending', 'verified', 'pending', null],
      ['errored + new -> pending, reason cleared', 'errored', 'pending', null],
    ])('allows %s', async (_label, from, status, statusReason) => {
      const account = await accountIn(from);
      const res = await patch(account.id, { status: 'new' }).expect(200);
      expect(res.body).toMatchObject({ status, statusReason });
      expect((await get(account.id)).body).toEqual(res.body);
      if (from === status) expect(res.body).toEqual(account);
      else expect(res.body.updatedAt >= account.updatedAt).toBe(true);
    });

    it('records externalBankAccount.updated for a resubmission, and nothing for the no-op', async () => {
      const account = await accountIn('errored');
      const res = await patch(account.id, { status: 'new' }).expect(200);
      await patch(account.id, { status: 'new' }).expect(200);
      const events = await eventsOf(account.id);
      expect(events.map((e) => [e.type, e.actor.type])).toEqual([
        ['externalBankAccount.created', 'apiKey'],
        ['externalBankAccount.errored', 'operator'],
        ['externalBankAccount.updated', 'apiKey'],
      ]);
      expect(events[2].data).toEqual({
        object: res.body,
        previousAttributes: { status: 'errored', statusReason: ERRORED_REASON },
      });
    });

    it.each(
      (['pending', 'verified', 'errored'] as const).flatMap((from) =>
        (['pending', 'verified', 'errored'] as const).map((status) => [status, from] as const),
      ),
    )(
      'refuses status "%s" with 400 saying the verification process sets it (account %s), changing nothing',
      async (status, from) => {
        const account = await accountIn(from);
        const res = await patch(account.id, { status, metadata: { a: '1' } });
        expectErrorEnvelope(res, 400, 'validation_error', 'STATUS_SET_BY_VERIFICATION');
        expect(res.body.errors).toEqual([
          {
            field: 'status',
            code: 'status_set_by_verification',
            message: expect.stringContaining('set by the verification process'),
          },
        ]);
        expect(res.body.errors[0].message).toContain('"new"');
        expect((await get(account.id)).body).toEqual(account);
      },
    );

    it.each<[string, unknown, string]>([
      ['an unknown status', 'active', 'invalid_value'],
      ['a status in upper case', 'NEW', 'invalid_value'],
      ['a status in upper case (VERIFIED)', 'VERIFIED', 'invalid_value'],
      ['an empty status', '', 'invalid_value'],
      ['a number', 1, 'invalid_type'],
      ['null', null, 'invalid_type'],
    ])('refuses %s as status', async (_label, status, code) => {
      const account = await accountIn('pending');
      const res = await patch(account.id, { status });
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors).toEqual([{ field: 'status', code, message: expect.any(String) }]);
    });

    it('resubmits an account each time verification has decided it', async () => {
      const account = await accountIn('pending');
      const steps: ['verified' | 'errored' | 'new', string, string | null][] = [
        ['verified', 'verified', null],
        ['new', 'pending', null],
        ['errored', 'errored', ERRORED_REASON],
        ['new', 'pending', null],
        ['verified', 'verified', null],
      ];
      for (const [step, status, statusReason] of steps) {
        const body =
          step === 'new'
            ? (await patch(account.id, { status: 'new' }).expect(200)).body
            : await decide(t, account.id, step, ERRORED_REASON);
        expect(body).toMatchObject({ status, statusReason });
      }
    });
  });

  describe('other fields', () => {
    it('answers 200 and changes nothing (not even updatedAt) for an empty body', async () => {
      const account = await createAccount(t, tenant, { metadata: { a: 1 } });
      await new Promise((r) => setTimeout(r, 5));
      const res = await patch(account.id, {}).expect(200);
      expect(res.body).toEqual(account);
      expect((await get(account.id)).body).toEqual(account);
    });

    it('answers 200 for a PATCH without a body', async () => {
      const account = await createAccount(t, tenant);
      const res = await t.http().patch(url(account.id)).set(tenant.auth).expect(200);
      expect(res.body).toEqual(account);
    });

    it('changes the holder name and type and moves updatedAt', async () => {
      const account = await createAccount(t, tenant);
      await new Promise((r) => setTimeout(r, 5));
      const res = await patch(account.id, {
        accountHolderName: 'Acme Inc.',
        accountHolderType: 'company',
      }).expect(200);
      expect(res.body).toEqual({
        ...account,
        accountHolderName: 'Acme Inc.',
        accountHolderType: 'company',
        updatedAt: res.body.updatedAt,
      });
      expect(res.body.updatedAt > account.updatedAt).toBe(true);
      expect(res.body.createdAt).toBe(account.createdAt);
    });

    it('merges metadata key by key and removes a key set to null', async () => {
      const account = await createAccount(t, tenant, { metadata: { a: '1', b: 2, c: true } });
      const res = await patch(account.id, { metadata: { b: null, c: false, d: 'new' } }).expect(
        200,
      );
      expect(res.body.metadata).toEqual({ a: '1', c: false, d: 'new' });
      expect((await get(account.id)).body.metadata).toEqual({ a: '1', c: false, d: 'new' });
    });

    it('removes every metadata key when metadata is null', async () => {
      const account = await createAccount(t, tenant, { metadata: { a: '1', b: 2 } });
      const res = await patch(account.id, { metadata: null }).expect(200);
      expect(res.body.metadata).toEqual({});
    });

    it('refuses metadata that would exceed 50 keys after the merge', async () => {
      const keys = (from: number, n: number) =>
        Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${from + i}`, 'v']));
      const account = await createAccount(t, tenant, { metadata: keys(0, 30) });
      const res = await patch(account.id, { metadata: keys(30, 21) });
      expectErrorEnvelope(res, 400, 'validation_error', 'INVALID_METADATA');
      expect((await get(account.id)).body).toEqual(account);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['accountNumber', { accountNumber: '000123456789' }, 'accountNumber'],
      ['routingNumber', { routingNumber: '021000021' }, 'routingNumber'],
      ['countryCode', { countryCode: 'CA' }, 'countryCode'],
      ['currency', { currency: 'EUR' }, 'currency'],
      ['bankName', { bankName: 'New Bank' }, 'bankName'],
      ['bankName null', { bankName: null }, 'bankName'],
    ])(
      'refuses %s with a 400 that says to create a new external account',
      async (_l, body, field) => {
        const account = await createAccount(t, tenant);
        const res = await patch(account.id, { accountHolderName: 'Changed', ...body });
        expectErrorEnvelope(res, 400, 'validation_error', 'FIELD_NOT_ALLOWED');
        expect(res.body.errors).toEqual([
          {
            field,
            code: 'field_not_allowed',
            message: expect.stringContaining('create a new external account'),
          },
        ]);
        expect(JSON.stringify(res.body)).not.toContain('000123456789');
        expect((await get(account.id)).body).toEqual(account);
      },
    );

    it.each<[string, Record<string, unknown>, string, string]>([
      [
        'organizationId (even your own)',
        { organizationId: OWN_ORGANIZATION },
        'organizationId',
        'field_not_allowed',
      ],
      ['statusReason', { statusReason: 'because' }, 'statusReason', 'field_not_allowed'],
      ['an unknown field', { nickname: 'x' }, 'nickname', 'unknown_field'],
      ['id', { id: 'eba_01JD3Y2Q6J8C4N1V9W5X7Z0EBA' }, 'id', 'field_not_allowed'],
      ['last4', { last4: '0000' }, 'last4', 'field_not_allowed'],
      ['accountHolderName null', { accountHolderName: null }, 'accountHolderName', 'invalid_type'],
      ['accountHolderName blank', { accountHolderName: '  ' }, 'accountHolderName', 'blank'],
      ['accountHolderName empty', { accountHolderName: '' }, 'accountHolderName', 'too_short'],
      [
        'accountHolderName of 201 characters',
        { accountHolderName: 'n'.repeat(201) },
        'accountHolderName',
        'too_long',
      ],
      [
        'accountHolderName as a number',
        { accountHolderName: 7 },
        'accountHolderName',
        'invalid_type',
      ],
      [
        'accountHolderType business',
        { accountHolderType: 'business' },
        'accountHolderType',
        'invalid_value',
      ],
      ['accountHolderType null', { accountHolderType: null }, 'accountHolderType', 'invalid_type'],
      ['nested metadata', { metadata: { a: { b: 1 } } }, 'metadata', 'invalid_metadata'],
      ['metadata as a string', { metadata: 'a=1' }, 'metadata', 'invalid_metadata'],
    ])('refuses %s with 400', async (_label, body, field, code) => {
      const account = await createAccount(t, tenant);
      const patchBody = { ...body };
      if (patchBody.organizationId === OWN_ORGANIZATION)
        patchBody.organizationId = tenant.organizationId;
      const res = await patch(account.id, patchBody);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors).toEqual([{ field, code, message: expect.any(String) }]);
      expect((await get(account.id)).body).toEqual(account);
    });

    it('refuses a body that is not an object', async () => {
      const account = await createAccount(t, tenant);
      const res = await t.http().patch(url(account.id)).set(tenant.auth).send(['new']);
      expectErrorEnvelope(res, 400, 'validation_error');
    });

    it('refuses malformed JSON', async () => {
      const account = await createAccount(t, tenant);
      const res = await t
        .http()
        .patch(url(account.id))
        .set(tenant.auth)
        .set('Content-Type', 'application/json')
        .send('{"status": ');
      expectErrorEnvelope(res, 400, 'validation_error', 'MALFORMED_JSON');
    });
  });

  describe('concurrency and If-Match', () => {
    it('never loses a metadata key when PATCHes run concurrently', async () => {
      const account = await createAccount(t, tenant);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => patch(account.id, { metadata: { [`k${i}`]: i } })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
      const final = (await get(account.id)).body;
      expect(Object.keys(final.metadata).sort()).toEqual(
        Array.from({ length: 12 }, (_, i) => `k${i}`).sort(),
      );
    });

    it('applies a PATCH whose If-Match is the current ETag, then refuses the stale one with 412', async () => {
      const account = await createAccount(t, tenant);
      const tag = etagOf((await get(account.id)).body);
      const first = await patch(account.id, { metadata: { a: 1 } })
        .set('If-Match', tag)
        .expect(200);
      expect(first.body.metadata).toEqual({ a: 1 });
      const stale = await patch(account.id, { metadata: { b: 2 } }).set('If-Match', tag);
      expectErrorEnvelope(stale, 412, 'precondition_failed');
      expect((await get(account.id)).body).toEqual(first.body);
      // The response of a PATCH is the representation the next If-Match is checked against.
      await patch(account.id, { metadata: { b: 2 } })
        .set('If-Match', etagOf(first.body))
        .expect(200);
    });

    it('accepts If-Match: * and a list that holds the current ETag', async () => {
      const account = await accountIn('verified');
      await patch(account.id, { status: 'new' }).set('If-Match', '*').expect(200);
      const current = (await get(account.id)).body;
      const res = await patch(account.id, { metadata: { a: 1 } })
        .set('If-Match', `"nope", ${etagOf(current)}`)
        .expect(200);
      expect(res.body).toMatchObject({ status: 'pending', metadata: { a: 1 } });
    });

    it('refuses a resubmission whose If-Match predates the verification with 412', async () => {
      const account = await createAccount(t, tenant);
      await decide(t, account.id, 'verified');
      const res = await patch(account.id, { status: 'new' }).set('If-Match', etagOf(account));
      expectErrorEnvelope(res, 412, 'precondition_failed');
      expect((await get(account.id)).body.status).toBe('verified');
    });

    it('refuses a DELETE whose If-Match is stale with 412 and keeps the account', async () => {
      const account = await createAccount(t, tenant);
      const tag = etagOf(account);
      await patch(account.id, { accountHolderName: 'Changed' }).expect(200);
      const res = await del(account.id).set('If-Match', tag);
      expectErrorEnvelope(res, 412, 'precondition_failed');
      await get(account.id).expect(200);
      const current = (await get(account.id)).body;
      await del(account.id).set('If-Match', etagOf(current)).expect(200);
    });

    it('of concurrent resubmissions, one makes the new submission and the others see it', async () => {
      const account = await accountIn('verified');
      const results = await Promise.all(
        Array.from({ length: 4 }, () => patch(account.id, { status: 'new' })),
      );
      expect(results.map((r) => [r.status, r.body.status])).toEqual(
        Array(4).fill([200, 'pending']),
      );
      const updated = (await eventsOf(account.id)).filter(
        (e) => e.type === 'externalBankAccount.updated',
      );
      expect(updated).toHaveLength(1);
      expect(updated[0].data.previousAttributes).toEqual({ status: 'verified' });
    });
  });

  describe('DELETE', () => {
    it('answers 200 { id, object, deleted: true } and the account is gone', async () => {
      const account = await createAccount(t, tenant);
      const res = await del(account.id).expect(200);
      expect(res.body).toEqual({ id: account.id, object: 'externalBankAccount', deleted: true });
      expectErrorEnvelope(await get(account.id), 404, 'not_found', 'RESOURCE_NOT_FOUND');
      expectErrorEnvelope(await patch(account.id, { status: 'new' }), 404, 'not_found');
      const list = await t
        .http()
        .get('/v0/externalAccounts?limit=100')
        .set(tenant.auth)
        .expect(200);
      expect(list.body.data.map((a: any) => a.id)).not.toContain(account.id);
    });

    it('answers 404 to a second DELETE', async () => {
      const account = await createAccount(t, tenant);
      await del(account.id).expect(200);
      expectErrorEnvelope(await del(account.id), 404, 'not_found');
    });

    it('deletes an account in any status', async () => {
      for (const status of ['pending', 'verified', 'errored'] as const) {
        const account = await accountIn(status);
        await del(account.id).expect(200);
      }
    });
  });

  describe('tenancy and ids', () => {
    it("answers 404 to every route for another organization's account, and changes nothing", async () => {
      const account = await createAccount(t, other);
      const theirs = await get(account.id, other).expect(200);
      const cases = [
        await get(account.id),
        await patch(account.id, { status: 'new' }),
        await patch(account.id, {}),
        await del(account.id),
      ];
      for (const res of cases) expectErrorEnvelope(res, 404, 'not_found', 'RESOURCE_NOT_FOUND');
      const missing = await get('eba_01JD3Y2Q6J8C4N1V9W5X7Z0000');
      expect(cases[0].body.message).toBe(
        missing.body.message.replace('eba_01JD3Y2Q6J8C4N1V9W5X7Z0000', account.id),
      );
      expect((await get(account.id, other)).body).toEqual(theirs.body);
      const list = await t
        .http()
        .get('/v0/externalAccounts?limit=100')
        .set(tenant.auth)
        .expect(200);
      expect(list.body.data.map((a: any) => a.id)).not.toContain(account.id);
    });

    it.each([
      'eba_01JD3Y2Q6J8C4N1V9W5X7Z0000',
      'eba_short',
      'prod_01JD3Y2Q6J8C4N1V9W5X7Z0000',
      'not-an-id',
      'eba_' + 'A'.repeat(41),
      "eba_1' OR '1'='1",
    ])('answers 404 (never 500) on every route for the id %j', async (id) => {
      const encoded = encodeURIComponent(id);
      for (const res of [
        await t.http().get(`/v0/externalAccounts/${encoded}`).set(tenant.auth),
        await t.http().patch(`/v0/externalAccounts/${encoded}`).set(tenant.auth).send({}),
        await t.http().delete(`/v0/externalAccounts/${encoded}`).set(tenant.auth),
      ]) {
        expectErrorEnvelope(res, 404, 'not_found');
      }
    });

    it('answers 401 without a key on every route', async () => {
      const account = await createAccount(t, tenant);
      for (const res of [
        await t.http().get(url(account.id)),
        await t.http().patch(url(account.id)).send({ status: 'new' }),
        await t.http().delete(url(account.id)),
        await t.http().get('/v0/externalAccounts'),
      ]) {
        expectErrorEnvelope(res, 401, 'unauthorized');
      }
      expect((await get(account.id)).body).toEqual(account);
    });
  });
});
