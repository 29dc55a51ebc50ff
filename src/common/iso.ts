import { codes as currencyCodes } from 'currency-codes';
import { isValid as isCountryAlpha2 } from 'i18n-iso-countries';
import { Rule, documented } from './validation/decorators';

/**
 * ISO 4217 codes that are not money a bank account holds or a price is charged in. The code list
 * (currency-codes, ISO 4217 list one) has them all and marks none of them as such: its data
 * names no "fund" flag, and the non-currency "Zz" entities cover only the metals, bond units,
 * XTS and XXX. So they are listed here (iso.spec.ts checks each against the library, and that
 * every "Zz" entity it has is here).
 */
export const NOT_MONEY_CURRENCY_CODES: ReadonlySet<string> = new Set([
  // Precious metals, by the troy ounce.
  'XAU', // gold
  'XAG', // silver
  'XPT', // platinum
  'XPD', // palladium
  // European bond-market units of account.
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  // Units of account of institutions, not legal tender.
  'XDR', // IMF special drawing right
  'XSU', // SUCRE (ALBA's clearing unit)
  'XUA', // African Development Bank unit of account
  // Reserved for testing, and "no currency involved".
  'XTS',
  'XXX',
  // Funds codes: indexed units and same-day/next-day variants beside a country's currency.
  'BOV', // Bolivian Mvdol
  'CHE', // WIR euro
  'CHW', // WIR franc
  'CLF', // Chilean Unidad de Fomento
  'COU', // Colombian Unidad de Valor Real
  'MXV', // Mexican Unidad de Inversión
  'USN', // US dollar next day
  'UYI', // Uruguay peso en unidades indexadas
  'UYW', // Uruguayan Unidad Previsional
]);

/**
 * Changes to ISO 4217 list one after the list that currency-codes ships (published 2024-06-25),
 * applied here until the library has them: iso.spec.ts fails as soon as it does, so that each
 * entry is then dropped. The Caribbean guilder (XCG) of Curaçao and Sint Maarten was issued on
 * 31 March 2025 and replaced the Netherlands Antillean guilder (ANG), which stopped being legal
 * tender three months later.
 */
export const ISO_4217_SINCE_LIBRARY = {
  added: ['XCG'],
  withdrawn: ['ANG'],
} as const;

/** The ISO 4217 codes the API accepts: those of money (legal tender such as XAF, XOF, XPF). */
const CURRENCIES = new Set<string>(
  [...currencyCodes(), ...ISO_4217_SINCE_LIBRARY.added].filter(
    (code) =>
      !NOT_MONEY_CURRENCY_CODES.has(code) &&
      !(ISO_4217_SINCE_LIBRARY.withdrawn as readonly string[]).includes(code),
  ),
);

/**
 * An ISO 4217 alphabetic code of a currency that exists, in upper case; not a metal, fund, unit
 * of account or testing code (NOT_MONEY_CURRENCY_CODES).
 */
export function isCurrencyCode(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Z]{3}$/.test(value) && CURRENCIES.has(value);
}

/** An ISO 3166-1 alpha-2 code that exists, in upper case. */
export function isCountryCode(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Z]{2}$/.test(value) && isCountryAlpha2(value);
}

export const CURRENCY_CODE_MESSAGE =
  'must be an ISO 4217 currency code in upper case, such as "USD"';
export const COUNTRY_CODE_MESSAGE =
  'must be an ISO 3166-1 alpha-2 country code in upper case, such as "US"';

export const IsCurrencyCode = () =>
  documented(
    { pattern: '^[A-Z]{3}$' },
    Rule('isCurrencyCode', 'invalid_currency', CURRENCY_CODE_MESSAGE, isCurrencyCode),
  );

export const IsCountryCode = () =>
  documented(
    { pattern: '^[A-Z]{2}$' },
    Rule('isCountryCode', 'invalid_country', COUNTRY_CODE_MESSAGE, isCountryCode),
  );
