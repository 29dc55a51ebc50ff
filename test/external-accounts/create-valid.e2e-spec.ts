import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import {
  ACCOUNT_KEYS,
  createAccount,
  uniqueDigits,
  usAccount,
} from '../helpers/external-accounts-factory';
import {
  bodyText,
  createSuiteCalls,
  ID_PATTERN,
  ISO_UTC,
  gb,
  de,
  ca,
  au,
} from '../helpers/external-accounts-create-suite';

describe(`POST /v0/externalAccounts (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant('Acme');
    await t.createTenant('Other');
  });
  afterAll(() => t.close());

  const { post, count } = createSuiteCalls(
    () => t,
    () => tenant,
  );

  describe('a valid account', () => {
    it('answers 201 with every field, the number redacted and status pending', async () => {
      const body = usAccount({ accountNumber: '000123456789', metadata: { vendor: 'v-1', n: 2 } });
      const res = await post(body).expect(201);
      expect(Object.keys(res.body)).toEqual(ACCOUNT_KEYS);
      expect(res.body).toEqual({
        id: expect.stringMatching(ID_PATTERN),
        object: 'externalBankAccount',
        livemode: true,
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

    it.each(['XAF', 'XOF', 'XPF', 'XCD', 'EUR', 'CHF'])(
      'accepts the currency %s, legal tender',
      async (currency) => {
        const created = await createAccount(t, tenant, { currency });
        expect(created.currency).toBe(currency);
      },
    );
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
        'US: routing of nine zeros (its checksum passes)',
        usAccount({ routingNumber: '000000000' }),
        'ROUTING_NUMBER_INVALID',
        'routingNumber',
      ],
      [
        'US: routing with no district prefix (13; its checksum passes)',
        usAccount({ routingNumber: '130000006' }),
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
      // ISO 4217 codes that are not money (docs/decisions.md §5.5).
      ...['XXX', 'XTS', 'XAU', 'XAG', 'XDR', 'XUA', 'BOV', 'USN', 'UYW'].map(
        (currency): [string, Record<string, unknown>, string, string] => [
          `currency ${currency}, which is not money`,
          usAccount({ currency }),
          'INVALID_CURRENCY',
          'currency',
        ],
      ),
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
});
