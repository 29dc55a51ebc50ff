import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import {
  ACCOUNT_KEYS,
  createAccount,
  uniqueDigits,
  uniqueGermanIban,
  usAccount,
} from '../helpers/external-accounts-factory';

/**
 * The body as text without its requestId: a random request id may hold any short run of digits,
 * so a check that an account number is not echoed must not read it.
 */
function bodyText(res: { body: unknown }): string {
  return JSON.stringify({ ...(res.body as object), requestId: undefined });
}

const ID_PATTERN = /^eba_[0-9A-Za-z]{16,40}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

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

  const post = (body: unknown, who: TestTenant = tenant) =>
    t
      .http()
      .post('/v0/externalAccounts')
      .set(who.auth)
      .send(body as object);

  async function count(who: TestTenant = tenant): Promise<number> {
    const res = await t.http().get('/v0/externalAccounts').set(who.auth).expect(200);
    return res.body.pagination.total;
  }

  describe('a valid account', () => {
    it('answers 201 with every field, the number redacted and status pending', async () => {
      const body = usAccount({ accountNumber: '000123456789', metadata: { vendor: 'v-1', n: 2 } });
      const res = await post(body).expect(201);
      expect(Object.keys(res.body)).toEqual(ACCOUNT_KEYS);
      expect(res.body).toEqual({
        id: expect.stringMatching(ID_PATTERN),
        object: 'externalBankAccount',
        organizationId: tenant.organizationId,
        countryCode: 'US',
        bankName: 'STRIPE TEST BANK',
        currency: 'USD',
        accountNumber: '****6789',
        routingNumber: '110000000',
        accountHolderName: 'Jenny Rosen',
        accountHolderType: 'individual',
        last4: '6789',
        status: 'pending',
        statusReason: null,
        metadata: { n: 2, vendor: 'v-1' },
        createdAt: expect.stringMatching(ISO_UTC),
        updatedAt: res.body.createdAt,
      });
      expect(bodyText(res)).not.toContain('000123456789');
    });

    it('is returned by GET exactly as created', async () => {
      const created = await createAccount(t, tenant, { accountHolderType: 'company' });
      const res = await t
        .http()
        .get(`/v0/externalAccounts/${created.id}`)
        .set(tenant.auth)
        .expect(200);
      expect(res.body).toEqual(created);
    });

    it('defaults metadata to an empty object', async () => {
      const created = await createAccount(t, tenant);
      expect(created.metadata).toEqual({});
    });

    it('accepts organizationId of the caller', async () => {
      const created = await createAccount(t, tenant, { organizationId: tenant.organizationId });
      expect(created.organizationId).toBe(tenant.organizationId);
    });
  });

  describe('bank-detail rules', () => {
    // [label, body, what the response shows]
    const valid: [string, () => Record<string, unknown>, Record<string, unknown>][] = [
      [
        'US: 4-digit account, ABA routing number',
        () => usAccount({ accountNumber: uniqueDigits(4) }),
        {},
      ],
      ['US: 17-digit account', () => usAccount({ accountNumber: uniqueDigits(17) }), {}],
      [
        'US: routing 021000021',
        () => usAccount({ routingNumber: '021000021' }),
        { routingNumber: '021000021' },
      ],
      [
        'GB: account with a 6-digit sort code',
        () => gb({ accountNumber: uniqueDigits(8), routingNumber: '108800' }),
        { routingNumber: '108800' },
      ],
      [
        'GB: sort code written 10-88-00 (stored 108800)',
        () => gb({ accountNumber: uniqueDigits(8), routingNumber: '10-88-00' }),
        { routingNumber: '108800' },
      ],
      [
        'GB: sort code written 10 88 00 (stored 108800)',
        () => gb({ accountNumber: uniqueDigits(8), routingNumber: '10 88 00' }),
        { routingNumber: '108800' },
      ],
      [
        'GB: an IBAN of GB',
        () => gb({ accountNumber: 'GB29NWBK60161331926819', routingNumber: '601613' }),
        { last4: '6819' },
      ],
      [
        'DE: an IBAN with an 11-character BIC',
        () => de({ routingNumber: 'COBADEFFXXX' }),
        { routingNumber: 'COBADEFFXXX' },
      ],
      [
        'DE: an IBAN with an 8-character BIC',
        () => de({ routingNumber: 'COBADEFF' }),
        { routingNumber: 'COBADEFF' },
      ],
      [
        'DE: an IBAN with a national bank code',
        () => de({ routingNumber: '37040044' }),
        { routingNumber: '37040044' },
      ],
      [
        'DE: a lower-case BIC (stored upper case)',
        () => de({ routingNumber: 'cobadeffxxx' }),
        { routingNumber: 'COBADEFFXXX' },
      ],
      ['DE: a domestic account number', () => de({ accountNumber: uniqueDigits(10) }), {}],
      [
        'CA: 8-digit transit and institution',
        () => ca({ routingNumber: '11000000' }),
        { routingNumber: '11000000' },
      ],
      [
        'CA: 9-digit EFT routing number',
        () => ca({ routingNumber: '011000000' }),
        { routingNumber: '011000000' },
      ],
      [
        'CA: written 11000-000 (stored 11000000)',
        () => ca({ routingNumber: '11000-000' }),
        { routingNumber: '11000000' },
      ],
      ['AU: a 6-digit BSB', () => au({ routingNumber: '110000' }), { routingNumber: '110000' }],
      [
        'AU: a BSB written 110-000 (stored 110000)',
        () => au({ routingNumber: '110-000' }),
        { routingNumber: '110000' },
      ],
    ];

    it.each(valid)('accepts %s', async (_label, body, shown) => {
      const sent = body();
      const res = await post(sent).expect(201);
      const account = String(sent.accountNumber).toUpperCase();
      // At most half of a short number shows (docs/api.md §5.5): a 4-digit one shows 2.
      const tail = account.slice(-Math.min(4, Math.floor(account.length / 2)));
      expect(res.body).toMatchObject({
        countryCode: sent.countryCode,
        accountNumber: `****${tail}`,
        last4: tail,
        routingNumber: sent.routingNumber,
        ...shown,
      });
    });

    // [label, body, top-level code, field]
    const invalid: [string, Record<string, unknown>, string, string][] = [
      [
        'US: account of 3 digits',
        usAccount({ accountNumber: '123' }),
        'ACCOUNT_NUMBER_INVALID',
        'accountNumber',
      ],
      [
        'US: account of 18 digits',
        usAccount({ accountNumber: '1'.repeat(18) }),
        'ACCOUNT_NUMBER_INVALID',
        'accountNumber',
      ],
      [
        'US: account with letters',
        usAccount({ accountNumber: '1234567AB' }),
        'ACCOUNT_NUMBER_INVALID',
        'accountNumber',
      ],
      [
        'US: account with spaces',
        usAccount({ accountNumber: '1234 5678' }),
        'ACCOUNT_NUMBER_INVALID',
        'accountNumber',
      ],
      [
        'US: routing with a bad checksum',
        usAccount({ routingNumber: '110000001' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'US: routing of 8 digits',
        usAccount({ routingNumber: '11000000' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'US: routing of 10 digits',
        usAccount({ routingNumber: '1100000000' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'US: routing with letters',
        usAccount({ routingNumber: '11000000X' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'GB: sort code of 5 digits',
        gb({ routingNumber: '10880' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'GB: sort code of 7 digits',
        gb({ routingNumber: '1088000' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'GB: sort code 10-8800',
        gb({ routingNumber: '10-8800' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'GB: a BIC instead of a sort code',
        gb({ routingNumber: 'NWBKGB2L' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'GB: account of 3 digits',
        gb({ accountNumber: '123' }),
        'ACCOUNT_NUMBER_INVALID',
        'accountNumber',
      ],
      [
        'GB: IBAN with a bad check digit',
        gb({ accountNumber: 'GB28NWBK60161331926819' }),
        'IBAN_INVALID',
        'accountNumber',
      ],
      [
        'DE: IBAN with a bad check digit',
        de({ accountNumber: 'DE88370400440532013000' }),
        'IBAN_INVALID',
        'accountNumber',
      ],
      [
        'DE: IBAN of the wrong length',
        de({ accountNumber: 'DE8937040044053201300' }),
        'IBAN_INVALID',
        'accountNumber',
      ],
      [
        'DE: IBAN with a typo',
        de({ accountNumber: 'DE89370400440532013001' }),
        'IBAN_INVALID',
        'accountNumber',
      ],
      [
        'DE: an FR IBAN',
        de({ accountNumber: 'FR1420041010050500013M02606' }),
        'IBAN_COUNTRY_MISMATCH',
        'accountNumber',
      ],
      [
        'DE: IBAN with spaces',
        de({ accountNumber: 'DE89 3704 0044 0532 0130 00' }),
        'ACCOUNT_NUMBER_INVALID',
        'accountNumber',
      ],
      [
        'DE: account of 35 characters',
        de({ accountNumber: '1'.repeat(35) }),
        'ACCOUNT_NUMBER_INVALID',
        'accountNumber',
      ],
      [
        'DE: BIC-shaped code of no country',
        de({ routingNumber: 'COBAXXFF' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'DE: national code of 2 characters',
        de({ routingNumber: '37' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'DE: national code of 35 characters',
        de({ routingNumber: '3'.repeat(35) }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'CA: routing of 7 digits',
        ca({ routingNumber: '1100000' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'CA: routing of 10 digits',
        ca({ routingNumber: '1100000000' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'CA: routing with a letter',
        ca({ routingNumber: '1100000A' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'CA: account with punctuation',
        ca({ accountNumber: '1234.5678' }),
        'ACCOUNT_NUMBER_INVALID',
        'accountNumber',
      ],
      [
        'AU: BSB of 5 digits',
        au({ routingNumber: '11000' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'AU: BSB of 7 digits',
        au({ routingNumber: '1100000' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'AU: BSB 11-0000',
        au({ routingNumber: '11-0000' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'AU: a DE IBAN',
        au({ accountNumber: 'DE89370400440532013000' }),
        'IBAN_COUNTRY_MISMATCH',
        'accountNumber',
      ],
      ['country in lower case', usAccount({ countryCode: 'us' }), 'INVALID_COUNTRY', 'countryCode'],
      [
        'country that does not exist',
        usAccount({ countryCode: 'XX' }),
        'INVALID_COUNTRY',
        'countryCode',
      ],
      ['currency in lower case', usAccount({ currency: 'usd' }), 'INVALID_CURRENCY', 'currency'],
      [
        'currency that does not exist',
        usAccount({ currency: 'XYZ' }),
        'INVALID_CURRENCY',
        'currency',
      ],
    ];

    it.each(invalid)('rejects %s', async (_label, body, code, field) => {
      const before = await count();
      const res = await post(body);
      expectErrorEnvelope(res, 400, 'validation_error', code);
      expect(res.body.errors).toContainEqual({
        field,
        code: code.toLowerCase(),
        message: expect.any(String),
      });
      expect(bodyText(res)).not.toContain(String(body.accountNumber));
      expect(await count()).toBe(before);
    });

    it('names every invalid bank detail at once', async () => {
      const res = await post(usAccount({ accountNumber: 'ABC', routingNumber: '123' }));
      expectErrorEnvelope(res, 400, 'validation_error', 'ACCOUNT_NUMBER_INVALID');
      expect(res.body.errors.map((e: any) => e.field)).toEqual(['accountNumber', 'routingNumber']);
    });
  });

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
      ['a status', { status: 'verified' }, 'status', 'unknown_field'],
      ['an id', { id: 'eba_01JD3Y2Q6J8C4N1V9W5X7Z0EBA' }, 'id', 'unknown_field'],
      ['last4', { last4: '1234' }, 'last4', 'unknown_field'],
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
      ['another organization', { accountNumber: '987650001237', organizationId: 'org_x' }, 403],
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

    it.each(['org_00000000000000000000000000', 'not-an-id', ''])(
      'answers 403 for an organizationId that is not yours (%j)',
      async (organizationId) => {
        const res = await post(usAccount({ organizationId }));
        expectErrorEnvelope(res, 403, 'forbidden');
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

function gb(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return usAccount({
    countryCode: 'GB',
    currency: 'GBP',
    accountNumber: uniqueDigits(8),
    routingNumber: '108800',
    bankName: 'NatWest',
    ...overrides,
  });
}

function de(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return usAccount({
    countryCode: 'DE',
    currency: 'EUR',
    accountNumber: uniqueGermanIban(),
    routingNumber: 'COBADEFFXXX',
    bankName: 'Commerzbank',
    ...overrides,
  });
}

function ca(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return usAccount({
    countryCode: 'CA',
    currency: 'CAD',
    accountNumber: uniqueDigits(12),
    routingNumber: '11000000',
    bankName: 'RBC',
    ...overrides,
  });
}

function au(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return usAccount({
    countryCode: 'AU',
    currency: 'AUD',
    accountNumber: uniqueDigits(9),
    routingNumber: '110000',
    bankName: 'Commonwealth Bank',
    ...overrides,
  });
}

function manyKeys(n: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
}
