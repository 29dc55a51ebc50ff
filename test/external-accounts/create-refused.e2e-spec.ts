import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import { uniqueDigits, uniqueGermanIban, usAccount } from '../helpers/external-accounts-factory';
import {
  bodyText,
  createSuiteCalls,
  gb,
  de,
  ca,
  manyKeys,
} from '../helpers/external-accounts-create-suite';

describe(`POST /v0/externalAccounts (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant('Acme');
    other = await t.createTenant('Other');
  });
  afterAll(() => t.close());

  const { post, count } = createSuiteCalls(
    () => t,
    () => tenant,
  );

  describe('request shape', () => {
    it.each([
      'countryCode',
      'bankName',
      'currency',
      'accountNumber',
      'routingNumber',
      'accountHolderName',
      'accountHolderType',
    ])('requires %s', async (field) => {
      const body = usAccount();
      delete body[field];
      const res = await post(body);
      expectErrorEnvelope(res, 400, 'validation_error', 'REQUIRED');
      expect(res.body.errors).toEqual([{ field, code: 'required', message: 'is required' }]);
    });

    it('lists the bank-detail problems beside the other fields', async () => {
      const before = await count();
      const res = await post(
        usAccount({ currency: 'XXX', bankName: ' ', accountNumber: '1', routingNumber: '1' }),
      );
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors.map((e: any) => [e.field, e.code])).toEqual([
        ['bankName', 'blank'],
        ['currency', 'invalid_currency'],
        ['accountNumber', 'account_number_invalid'],
        ['routingNumber', 'routing_number_invalid'],
      ]);
      expect(bodyText(res)).not.toMatch(/"1"/);
      expect(await count()).toBe(before);
    });

    it('names every missing field of an empty body', async () => {
      const res = await post({});
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors.map((e: any) => e.field).sort()).toEqual(
        [
          'accountHolderName',
          'accountHolderType',
          'accountNumber',
          'bankName',
          'countryCode',
          'currency',
          'routingNumber',
        ].sort(),
      );
    });

    it.each<[string, Record<string, unknown>, string, string]>([
      ['accountNumber as a number', { accountNumber: 123456789 }, 'accountNumber', 'invalid_type'],
      ['routingNumber as a number', { routingNumber: 110000000 }, 'routingNumber', 'invalid_type'],
      ['countryCode as a number', { countryCode: 1 }, 'countryCode', 'invalid_type'],
      ['currency as an array', { currency: ['USD'] }, 'currency', 'invalid_type'],
      ['bankName as an object', { bankName: { name: 'x' } }, 'bankName', 'invalid_type'],
      [
        'accountHolderName as a boolean',
        { accountHolderName: true },
        'accountHolderName',
        'invalid_type',
      ],
      [
        'accountHolderType as a number',
        { accountHolderType: 1 },
        'accountHolderType',
        'invalid_type',
      ],
      [
        'accountHolderType business',
        { accountHolderType: 'business' },
        'accountHolderType',
        'invalid_value',
      ],
      [
        'accountHolderType in upper case',
        { accountHolderType: 'INDIVIDUAL' },
        'accountHolderType',
        'invalid_value',
      ],
      ['a blank bankName', { bankName: '   ' }, 'bankName', 'blank'],
      ['an empty bankName', { bankName: '' }, 'bankName', 'too_short'],
      ['a bankName of 201 characters', { bankName: 'b'.repeat(201) }, 'bankName', 'too_long'],
      ['a blank accountHolderName', { accountHolderName: ' \t' }, 'accountHolderName', 'blank'],
      ['a bankName of a zero-width space', { bankName: '\u200b' }, 'bankName', 'blank'],
      [
        'an accountHolderName of joiners and a no-break space',
        { accountHolderName: '\u200c\u00a0\u200d\u2060' },
        'accountHolderName',
        'blank',
      ],
      [
        'an accountHolderName of 201 characters',
        { accountHolderName: 'a'.repeat(201) },
        'accountHolderName',
        'too_long',
      ],
      ['null accountNumber', { accountNumber: null }, 'accountNumber', 'invalid_type'],
      ['null bankName', { bankName: null }, 'bankName', 'invalid_type'],
      ['null metadata', { metadata: null }, 'metadata', 'invalid_type'],
      ['nested metadata', { metadata: { a: { b: 1 } } }, 'metadata', 'invalid_metadata'],
      ['metadata as an array', { metadata: ['a'] }, 'metadata', 'invalid_metadata'],
      ['metadata with 51 keys', { metadata: manyKeys(51) }, 'metadata', 'invalid_metadata'],
      [
        'a metadata value of 501 characters',
        { metadata: { a: 'x'.repeat(501) } },
        'metadata',
        'invalid_metadata',
      ],
      ['organizationId as a number', { organizationId: 5 }, 'organizationId', 'invalid_type'],
      ['null organizationId', { organizationId: null }, 'organizationId', 'invalid_type'],
      ['an unknown field', { nickname: 'x' }, 'nickname', 'unknown_field'],
      // Fields of the account that the service sets: refused as such, saying what sets them.
      ['a status', { status: 'verified' }, 'status', 'field_not_allowed'],
      ['a statusReason', { statusReason: 'because' }, 'statusReason', 'field_not_allowed'],
      ['an id', { id: 'eba_01JD3Y2Q6J8C4N1V9W5X7Z0EBA' }, 'id', 'field_not_allowed'],
      ['last4', { last4: '1234' }, 'last4', 'field_not_allowed'],
    ])('rejects %s', async (_label, change, field, code) => {
      const before = await count();
      const body = usAccount(change);
      const res = await post(body);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors).toContainEqual({ field, code, message: expect.any(String) });
      if (typeof body.accountNumber === 'string') {
        expect(bodyText(res)).not.toContain(body.accountNumber);
      }
      expect(await count()).toBe(before);
    });

    it('rejects a huge account number without echoing it', async () => {
      const huge = '9'.repeat(50_000);
      const res = await post(usAccount({ accountNumber: huge }));
      expectErrorEnvelope(res, 400, 'validation_error', 'ACCOUNT_NUMBER_INVALID');
      expect(bodyText(res)).not.toContain('9'.repeat(20));
    });

    it('rejects a body that is not an object', async () => {
      const res = await t.http().post('/v0/externalAccounts').set(tenant.auth).send([usAccount()]);
      expectErrorEnvelope(res, 400, 'validation_error');
    });

    it('answers 401 without a key', async () => {
      const res = await t.http().post('/v0/externalAccounts').send(usAccount());
      expectErrorEnvelope(res, 401, 'unauthorized');
    });
  });

  describe('error bodies never carry the account number', () => {
    it.each<[string, Record<string, unknown>, number]>([
      ['a bad routing number', { accountNumber: '987650001234', routingNumber: '110000001' }, 400],
      ['an unknown field beside it', { accountNumber: '987650001235', extra: 1 }, 400],
      ['a bad currency beside it', { accountNumber: '987650001236', currency: 'ABC' }, 400],
      [
        'another organization',
        { accountNumber: '987650001237', organizationId: 'org_00000000000000000000000000' },
        403,
      ],
      ['a US account with letters', { accountNumber: '98765ABCDEF' }, 400],
    ])('%s', async (_label, change, status) => {
      const body = usAccount(change);
      const res = await post(body);
      expect(res.status).toBe(status);
      const text = bodyText(res);
      expect(text).not.toContain(String(body.accountNumber));
      expect(text).not.toContain(String(body.accountNumber).slice(0, 8));
    });

    it('a duplicate', async () => {
      const body = usAccount({ accountNumber: '987650001238' });
      await post(body).expect(201);
      const res = await post(body);
      expectErrorEnvelope(res, 409, 'conflict', 'DUPLICATE_EXTERNAL_ACCOUNT');
      expect(bodyText(res)).not.toContain('987650001238');
      expect(bodyText(res)).not.toContain('1238');
    });
  });

  describe('organizationId', () => {
    it("answers 403 for another organization's id and creates nothing", async () => {
      const before = [await count(), await count(other)];
      const res = await post(usAccount({ organizationId: other.organizationId }));
      expectErrorEnvelope(res, 403, 'forbidden');
      expect([await count(), await count(other)]).toEqual(before);
    });

    it('answers 403 for a well-formed organizationId that is not yours', async () => {
      const res = await post(usAccount({ organizationId: 'org_00000000000000000000000000' }));
      expectErrorEnvelope(res, 403, 'forbidden');
    });

    // docs/decisions.md §Authentication: as merchantId of products does.
    it.each(['not-an-id', '', 'bad', 'prod_01JD3Y7K2M5N8P1Q4R6S9T0VWX', 'org_x'])(
      'answers 400 invalid_id for an organizationId not shaped like one (%j), and creates nothing',
      async (organizationId) => {
        const before = await count();
        const res = await post(usAccount({ organizationId }));
        expectErrorEnvelope(res, 400, 'validation_error', 'INVALID_ID');
        expect(res.body.errors).toEqual([
          { field: 'organizationId', code: 'invalid_id', message: expect.any(String) },
        ]);
        expect(await count()).toBe(before);
      },
    );
  });

  describe('duplicates', () => {
    it('answers 409 DUPLICATE_EXTERNAL_ACCOUNT for the same country, routing and account number', async () => {
      const body = usAccount();
      const first = await post(body).expect(201);
      const before = await count();
      const res = await post({
        ...body,
        bankName: 'Another name',
        accountHolderName: 'Someone else',
      });
      expectErrorEnvelope(res, 409, 'conflict', 'DUPLICATE_EXTERNAL_ACCOUNT');
      expect(await count()).toBe(before);
      await t.http().get(`/v0/externalAccounts/${first.body.id}`).set(tenant.auth).expect(200);
    });

    it('treats a sort code written with hyphens as the same routing number', async () => {
      const accountNumber = uniqueDigits(8);
      await post(gb({ accountNumber, routingNumber: '108800' })).expect(201);
      const res = await post(gb({ accountNumber, routingNumber: '10-88-00' }));
      expectErrorEnvelope(res, 409, 'conflict', 'DUPLICATE_EXTERNAL_ACCOUNT');
    });

    it('treats an IBAN in lower case as the same account', async () => {
      const iban = uniqueGermanIban();
      await post(de({ accountNumber: iban })).expect(201);
      const res = await post(de({ accountNumber: iban.toLowerCase() }));
      expectErrorEnvelope(res, 409, 'conflict', 'DUPLICATE_EXTERNAL_ACCOUNT');
    });

    it('allows the same account number with another routing number, or in another country', async () => {
      const accountNumber = uniqueDigits(12);
      await post(usAccount({ accountNumber })).expect(201);
      await post(usAccount({ accountNumber, routingNumber: '021000021' })).expect(201);
      await post(ca({ accountNumber, routingNumber: '11000000' })).expect(201);
    });

    it('allows the same account in another organization', async () => {
      const body = usAccount();
      await post(body).expect(201);
      const res = await post(body, other).expect(201);
      expect(res.body.organizationId).toBe(other.organizationId);
    });

    it('of concurrent creates of one account, exactly one succeeds and the others answer 409', async () => {
      const body = usAccount();
      const before = await count();
      const results = await Promise.all(Array.from({ length: 8 }, () => post(body)));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      for (const r of results.filter((x) => x.status === 409)) {
        expectErrorEnvelope(r, 409, 'conflict', 'DUPLICATE_EXTERNAL_ACCOUNT');
      }
      expect(await count()).toBe(before + 1);
    });

    it('allows creating the account again once it is deleted', async () => {
      const body = usAccount();
      const first = await post(body).expect(201);
      await t.http().delete(`/v0/externalAccounts/${first.body.id}`).set(tenant.auth).expect(200);
      const again = await post(body).expect(201);
      expect(again.body.id).not.toBe(first.body.id);
      const res = await post(body);
      expectErrorEnvelope(res, 409, 'conflict', 'DUPLICATE_EXTERNAL_ACCOUNT');
    });
  });
});
