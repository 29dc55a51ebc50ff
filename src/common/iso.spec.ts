import { readFileSync } from 'node:fs';
import { code as currency, codes as currencyCodes, data as currencyData } from 'currency-codes';
import { ISO_4217_SINCE_LIBRARY, NOT_MONEY_CURRENCY_CODES, isCurrencyCode } from './iso';

describe('isCurrencyCode (docs/api.md §1: existing ISO 4217 codes of currencies)', () => {
  it.each(['USD', 'EUR', 'JPY', 'GBP', 'CHF', 'XAF', 'XOF', 'XPF', 'XCD', 'BOB', 'CLP', 'UYU'])(
    'accepts %s, legal tender',
    (code) => {
      expect(isCurrencyCode(code)).toBe(true);
    },
  );

  it.each([
    ...['XAU', 'XAG', 'XPT', 'XPD'], // precious metals
    ...['XBA', 'XBB', 'XBC', 'XBD'], // bond-market units
    ...['XDR', 'XSU', 'XUA'], // units of account
    ...['XTS', 'XXX'], // testing, no currency
    ...['BOV', 'CHE', 'CHW', 'CLF', 'COU', 'MXV', 'USN', 'UYI', 'UYW'], // funds
  ])('refuses %s, an ISO 4217 code that is not money', (code) => {
    expect(currency(code)).toBeDefined();
    expect(isCurrencyCode(code)).toBe(false);
  });

  it.each(['usd', 'XYZ', 'US', 'USDX', '', ' USD', 840, null, undefined])('refuses %j', (value) => {
    expect(isCurrencyCode(value)).toBe(false);
  });

  it('accepts XCG, issued in 2025, and refuses ANG, the code it replaced', () => {
    expect(isCurrencyCode('XCG')).toBe(true);
    expect(isCurrencyCode('ANG')).toBe(false);
  });

  it('applies only the changes to ISO 4217 that currency-codes does not have yet', () => {
    // When this fails, the library has caught up: drop the entry from ISO_4217_SINCE_LIBRARY.
    const known = new Set(currencyCodes());
    expect(ISO_4217_SINCE_LIBRARY.added.filter((c) => known.has(c))).toEqual([]);
    expect(ISO_4217_SINCE_LIBRARY.withdrawn.filter((c) => !known.has(c))).toEqual([]);
  });

  it('lists only codes the ISO 4217 list of currency-codes has', () => {
    const known = new Set(currencyCodes());
    expect([...NOT_MONEY_CURRENCY_CODES].filter((c) => !known.has(c))).toEqual([]);
  });

  it('excludes every entity of the list that is no country ("ZZ…": metals, bond units, XTS, XXX)', () => {
    const noCountry = currencyData
      .filter((r) => r.countries.some((c) => /^zz\d/i.test(c)))
      .map((r) => r.code);
    expect(noCountry.length).toBeGreaterThanOrEqual(10);
    expect(noCountry.filter((c) => !NOT_MONEY_CURRENCY_CODES.has(c))).toEqual([]);
  });

  it('excludes every code the ISO XML shipped with currency-codes marks IsFund', () => {
    const xml = readFileSync(require.resolve('currency-codes/iso-4217-list-one.xml'), 'utf8');
    const funds = [...xml.matchAll(/IsFund="true"[^<]*<\/CcyNm>\s*<Ccy>([A-Z]{3})<\/Ccy>/g)].map(
      (m) => m[1],
    );
    expect(funds.length).toBeGreaterThanOrEqual(8);
    expect(funds.filter((c) => !NOT_MONEY_CURRENCY_CODES.has(c))).toEqual([]);
  });
});
