import {
  BankDetailsInput,
  checkBankDetails,
  isAbaRoutingNumber,
  visibleLast4,
} from './bank-details';

const base: Record<string, BankDetailsInput> = {
  US: {
    countryCode: 'US',
    currency: 'USD',
    accountNumber: '000123456789',
    routingNumber: '110000000',
  },
  GB: { countryCode: 'GB', currency: 'GBP', accountNumber: '00012345', routingNumber: '108800' },
  DE: {
    countryCode: 'DE',
    currency: 'EUR',
    accountNumber: 'DE89370400440532013000',
    routingNumber: 'COBADEFFXXX',
  },
  CA: {
    countryCode: 'CA',
    currency: 'CAD',
    accountNumber: '000123456789',
    routingNumber: '11000000',
  },
  AU: { countryCode: 'AU', currency: 'AUD', accountNumber: '000123456', routingNumber: '110000' },
  FR: {
    countryCode: 'FR',
    currency: 'EUR',
    accountNumber: 'FR1420041010050500013M02606',
    routingNumber: 'BNPAFRPP',
  },
  JP: { countryCode: 'JP', currency: 'JPY', accountNumber: '1234567', routingNumber: '0005123' },
};

function check(country: keyof typeof base, change: Partial<BankDetailsInput>) {
  return checkBankDetails({ ...base[country], ...change });
}

describe('isAbaRoutingNumber', () => {
  it.each([
    ['110000000', true],
    ['021000021', true],
    ['011000015', true],
    ['121000358', true],
    ['211000006', true],
    ['110000001', false],
    ['000000000', false],
    ['990000000', false],
    ['130000006', false],
    ['021000022', false],
    ['11000000', false],
    ['1100000000', false],
    ['11000000A', false],
    ['110-000-00', false],
    ['', false],
  ])('%s -> %s', (value, expected) => {
    expect(isAbaRoutingNumber(value)).toBe(expected);
  });
});

describe('checkBankDetails', () => {
  describe('accepts valid details and returns them in canonical form', () => {
    it.each<[string, keyof typeof base, Partial<BankDetailsInput>, Partial<BankDetailsInput>]>([
      ['a US account of 4 digits', 'US', { accountNumber: '1234' }, { accountNumber: '1234' }],
      ['a US account of 17 digits', 'US', { accountNumber: '12345678901234567' }, {}],
      ['a US ABA routing number', 'US', { routingNumber: '021000021' }, {}],
      ['a GB sort code', 'GB', {}, { routingNumber: '108800' }],
      [
        'a GB sort code with hyphens',
        'GB',
        { routingNumber: '10-88-00' },
        { routingNumber: '108800' },
      ],
      [
        'a GB sort code with spaces',
        'GB',
        { routingNumber: '10 88 00' },
        { routingNumber: '108800' },
      ],
      ['a GB IBAN', 'GB', { accountNumber: 'GB29NWBK60161331926819' }, {}],
      ['a DE IBAN with a BIC', 'DE', {}, {}],
      ['a DE IBAN with an 8-character BIC', 'DE', { routingNumber: 'COBADEFF' }, {}],
      ['a DE IBAN with a national bank code', 'DE', { routingNumber: '37040044' }, {}],
      [
        'a DE IBAN in lower case (stored in upper case)',
        'DE',
        { accountNumber: 'de89370400440532013000', routingNumber: 'cobadeffxxx' },
        { accountNumber: 'DE89370400440532013000', routingNumber: 'COBADEFFXXX' },
      ],
      ['a DE domestic account number', 'DE', { accountNumber: '0532013000' }, {}],
      ['a CA 8-digit transit and institution', 'CA', {}, { routingNumber: '11000000' }],
      ['a CA 9-digit EFT routing number', 'CA', { routingNumber: '011000000' }, {}],
      [
        'a CA "transit-institution" form',
        'CA',
        { routingNumber: '11000-000' },
        { routingNumber: '11000000' },
      ],
      ['an AU BSB', 'AU', {}, { routingNumber: '110000' }],
      ['an AU BSB with a hyphen', 'AU', { routingNumber: '110-000' }, { routingNumber: '110000' }],
      ['an AU BSB with a space', 'AU', { routingNumber: '110 000' }, { routingNumber: '110000' }],
      ['an FR IBAN with letters inside', 'FR', {}, {}],
      ['a JP national bank code', 'JP', {}, {}],
      ['a 3-character national code', 'JP', { routingNumber: '005' }, {}],
      ['a 34-character national code', 'JP', { routingNumber: 'A'.repeat(34) }, {}],
      ['a 34-character account number', 'JP', { accountNumber: '1'.repeat(34) }, {}],
    ])('%s', (_label, country, change, canonical) => {
      const result = check(country, change);
      expect(result).toEqual({
        ok: true,
        details: { ...base[country], ...change, ...canonical },
      });
    });
  });

  describe('rejects invalid details with a field and a code', () => {
    it.each<[string, keyof typeof base, Partial<BankDetailsInput>, string, string]>([
      // Country and currency.
      ['a country in lower case', 'US', { countryCode: 'us' }, 'countryCode', 'invalid_country'],
      [
        'a country that does not exist',
        'US',
        { countryCode: 'XX' },
        'countryCode',
        'invalid_country',
      ],
      ['an alpha-3 country', 'US', { countryCode: 'USA' }, 'countryCode', 'invalid_country'],
      ['a currency in lower case', 'US', { currency: 'usd' }, 'currency', 'invalid_currency'],
      ['a currency that does not exist', 'US', { currency: 'XYZ' }, 'currency', 'invalid_currency'],
      // Account number, every country.
      [
        'an account of 3 characters',
        'JP',
        { accountNumber: '123' },
        'accountNumber',
        'account_number_invalid',
      ],
      [
        'an account of 35 characters',
        'JP',
        { accountNumber: '1'.repeat(35) },
        'accountNumber',
        'account_number_invalid',
      ],
      [
        'an account with a space',
        'GB',
        { accountNumber: '0001 2345' },
        'accountNumber',
        'account_number_invalid',
      ],
      [
        'an account with a hyphen',
        'GB',
        { accountNumber: '0001-2345' },
        'accountNumber',
        'account_number_invalid',
      ],
      [
        'an account with a non-ASCII letter',
        'GB',
        { accountNumber: '1234ß' },
        'accountNumber',
        'account_number_invalid',
      ],
      ['an empty account', 'GB', { accountNumber: '' }, 'accountNumber', 'account_number_invalid'],
      // US accounts.
      [
        'a US account of 3 digits',
        'US',
        { accountNumber: '123' },
        'accountNumber',
        'account_number_invalid',
      ],
      [
        'a US account of 18 digits',
        'US',
        { accountNumber: '1'.repeat(18) },
        'accountNumber',
        'account_number_invalid',
      ],
      [
        'a US account with letters',
        'US',
        { accountNumber: '12345ABC' },
        'accountNumber',
        'account_number_invalid',
      ],
      [
        'a US account that is an IBAN',
        'US',
        { accountNumber: 'DE89370400440532013000' },
        'accountNumber',
        'account_number_invalid',
      ],
      // IBANs.
      [
        'an IBAN with a wrong check digit',
        'DE',
        { accountNumber: 'DE88370400440532013000' },
        'accountNumber',
        'iban_invalid',
      ],
      [
        'an IBAN with a typo',
        'DE',
        { accountNumber: 'DE89370400440532013001' },
        'accountNumber',
        'iban_invalid',
      ],
      [
        'an IBAN of the wrong length',
        'DE',
        { accountNumber: 'DE8937040044053201300' },
        'accountNumber',
        'iban_invalid',
      ],
      [
        'an IBAN of an unknown country',
        'DE',
        { accountNumber: 'XX89370400440532013000' },
        'accountNumber',
        'iban_invalid',
      ],
      [
        'a GB IBAN with a wrong check digit',
        'GB',
        { accountNumber: 'GB28NWBK60161331926819' },
        'accountNumber',
        'iban_invalid',
      ],
      [
        'a valid FR IBAN for a DE account',
        'DE',
        { accountNumber: 'FR1420041010050500013M02606' },
        'accountNumber',
        'iban_country_mismatch',
      ],
      [
        'a valid DE IBAN for a GB account',
        'GB',
        { accountNumber: 'DE89370400440532013000' },
        'accountNumber',
        'iban_country_mismatch',
      ],
      // US routing numbers.
      [
        'a US routing number with a bad checksum',
        'US',
        { routingNumber: '110000001' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a US routing number of 8 digits',
        'US',
        { routingNumber: '11000000' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a US routing number of 10 digits',
        'US',
        { routingNumber: '1100000000' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a US routing number with a letter',
        'US',
        { routingNumber: '11000000A' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a US routing number with hyphens',
        'US',
        { routingNumber: '110-000-000' },
        'routingNumber',
        'routing_number_invalid',
      ],
      // GB sort codes.
      [
        'a GB sort code of 5 digits',
        'GB',
        { routingNumber: '10880' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a GB sort code of 7 digits',
        'GB',
        { routingNumber: '1088000' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a GB sort code with mixed separators',
        'GB',
        { routingNumber: '10-88 00' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a GB sort code with letters',
        'GB',
        { routingNumber: 'NWBK60' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a BIC for a GB account',
        'GB',
        { routingNumber: 'NWBKGB2L' },
        'routingNumber',
        'routing_number_invalid',
      ],
      // CA.
      [
        'a CA routing number of 7 digits',
        'CA',
        { routingNumber: '1100000' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a CA routing number of 10 digits',
        'CA',
        { routingNumber: '1100000000' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a CA routing number with a letter',
        'CA',
        { routingNumber: '1100000A' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a CA routing number with a misplaced hyphen',
        'CA',
        { routingNumber: '110-00000' },
        'routingNumber',
        'routing_number_invalid',
      ],
      // AU.
      [
        'an AU BSB of 5 digits',
        'AU',
        { routingNumber: '11000' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'an AU BSB of 7 digits',
        'AU',
        { routingNumber: '1100000' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'an AU BSB with a misplaced hyphen',
        'AU',
        { routingNumber: '11-0000' },
        'routingNumber',
        'routing_number_invalid',
      ],
      // Elsewhere: BIC or national code.
      [
        'a BIC-shaped code of an unknown country',
        'DE',
        { routingNumber: 'COBAXXFF' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a national code of 2 characters',
        'JP',
        { routingNumber: '05' },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a national code of 35 characters',
        'JP',
        { routingNumber: '1'.repeat(35) },
        'routingNumber',
        'routing_number_invalid',
      ],
      [
        'a national code with a hyphen',
        'JP',
        { routingNumber: '0005-123' },
        'routingNumber',
        'routing_number_invalid',
      ],
    ])('%s', (_label, country, change, field, code) => {
      const result = check(country, change);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.errors).toEqual([{ field, code, message: expect.any(String) }]);
    });
  });

  it("never names an IBAN's own country, part of its account number", () => {
    const check = checkBankDetails({ ...base.GB, accountNumber: 'DE89370400440532013000' });
    expect(check.ok).toBe(false);
    const [error] = check.ok ? [] : check.errors;
    expect(error).toMatchObject({ field: 'accountNumber', code: 'iban_country_mismatch' });
    expect(error.message).toContain('GB');
    expect(error.message).not.toContain('DE');
  });

  it('reports every invalid field, in request order', () => {
    const result = check('US', { currency: 'usd', accountNumber: 'ABC', routingNumber: '1' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.field, e.code])).toEqual([
      ['currency', 'invalid_currency'],
      ['accountNumber', 'account_number_invalid'],
      ['routingNumber', 'routing_number_invalid'],
    ]);
  });

  it('stops at an invalid country, because the other rules depend on it', () => {
    const result = check('US', { countryCode: 'ZZ', routingNumber: '1' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.field)).toEqual(['countryCode']);
  });

  it.each([
    '987654321098765',
    'DE44500105175407324931',
    'DE89370400440532013001',
    'FR1420041010050500013M02606',
  ])('never repeats the account number %s in a message', (accountNumber) => {
    for (const country of Object.keys(base)) {
      const result = check(country, { accountNumber, routingNumber: 'x' });
      const text = JSON.stringify(result.ok ? {} : result.errors);
      expect(text).not.toContain(accountNumber);
      expect(text).not.toContain(accountNumber.toLowerCase());
    }
  });
});

describe('visibleLast4', () => {
  it.each([
    ['1234', '34'],
    ['12345', '45'],
    ['123456', '456'],
    ['1234567', '567'],
    ['12345678', '5678'],
    ['000123456789', '6789'],
    ['GB82WEST12345698765432', '5432'],
  ])('shows %p as %p', (accountNumber, shown) => {
    expect(visibleLast4(accountNumber)).toBe(shown);
    expect(shown.length * 2).toBeLessThanOrEqual(accountNumber.length);
  });
});
