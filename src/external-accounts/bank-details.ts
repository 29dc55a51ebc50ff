import { isValidBIC, validateIBAN } from 'ibantools';
import { FieldError } from '../common/errors';
import {
  COUNTRY_CODE_MESSAGE,
  CURRENCY_CODE_MESSAGE,
  isCountryCode,
  isCurrencyCode,
} from '../common/iso';

/** The bank details of a create request, as sent (already known to be strings). */
export interface BankDetailsInput {
  countryCode: string;
  currency: string;
  accountNumber: string;
  routingNumber: string;
}

/**
 * The details in canonical form (letters in upper case, separators of sort codes and BSBs
 * removed), or one entry per invalid field.
 */
export type BankDetailsCheck =
  { ok: true; details: BankDetailsInput } | { ok: false; errors: FieldError[] };

const ALPHANUMERIC = (min: number, max: number) => new RegExp(`^[A-Za-z0-9]{${min},${max}}$`);
const LOOKS_LIKE_IBAN = /^[A-Z]{2}[0-9]{2}/;
const LOOKS_LIKE_BIC = /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

/**
 * ABA check: the first two digits are a district or kind of institution, and 3, 7, 1 weights
 * over the nine digits give a sum that is a multiple of 10.
 */
export function isAbaRoutingNumber(value: string): boolean {
  if (!/^[0-9]{9}$/.test(value) || value === '000000000') return false;
  // The first two digits name a Federal Reserve district or kind of institution: 00 (the U.S.
  // government), 01-12, 21-32 (thrifts), 61-72 (electronic) or 80 (traveler's checks); no bank
  // has a number outside these, though a checksum alone would pass one.
  const prefix = Number(value.slice(0, 2));
  if (!(
    prefix <= 12 ||
    (prefix >= 21 && prefix <= 32) ||
    (prefix >= 61 && prefix <= 72) ||
    prefix === 80
  )) {
    return false;
  }
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  const sum = [...value].reduce((acc, digit, i) => acc + Number(digit) * weights[i], 0);
  return sum % 10 === 0;
}

function problem(field: keyof BankDetailsInput, code: string, message: string): FieldError {
  return { field, code, message };
}

/** The account number in upper case, or why it is not acceptable for this country. */
function checkAccountNumber(country: string, raw: string): string | FieldError {
  const code = 'account_number_invalid';
  if (!ALPHANUMERIC(4, 34).test(raw)) {
    return problem(
      'accountNumber',
      code,
      'must be 4-34 digits and letters, without spaces or punctuation',
    );
  }
  const value = raw.toUpperCase();
  if (country === 'US') {
    return /^[0-9]{4,17}$/.test(value)
      ? value
      : problem('accountNumber', code, 'must be 4-17 digits for a US account');
  }
  if (LOOKS_LIKE_IBAN.test(value)) {
    if (!validateIBAN(value).valid) {
      return problem(
        'accountNumber',
        'iban_invalid',
        'looks like an IBAN (two letters, two digits) but is not a valid one: check its length and digits (ISO 13616 mod-97 check)',
      );
    }
    if (value.slice(0, 2) !== country) {
      return problem(
        'accountNumber',
        'iban_country_mismatch',
        // Not the IBAN's own country: its letters are part of the account number (never echoed).
        `is an IBAN of another country than countryCode ${country}: an IBAN begins with the code of its country`,
      );
    }
  }
  return value;
}

/** The routing number in canonical form, or why it is not acceptable for this country. */
function checkRoutingNumber(country: string, raw: string): string | FieldError {
  const invalid = (message: string) => problem('routingNumber', 'routing_number_invalid', message);
  switch (country) {
    case 'US':
      return isAbaRoutingNumber(raw)
        ? raw
        : invalid('must be a 9-digit ABA routing number (valid prefix and checksum)');
    case 'GB':
      // A sort code: "123456", or written "12-34-56" / "12 34 56".
      return /^[0-9]{2}([- ]?)[0-9]{2}\1[0-9]{2}$/.test(raw)
        ? raw.replace(/[- ]/g, '')
        : invalid('must be a 6-digit sort code, such as "108800" or "10-88-00"');
    case 'CA':
      // Transit (5 digits) and institution (3) numbers: "11000000" or "11000-000"; or 9 digits,
      // which takes the EFT form ("0" + institution + transit: "000011000" for 11000-000). Stored
      // as written, less the hyphen: one account written in both forms is not seen as one.
      return /^([0-9]{8,9}|[0-9]{5}-[0-9]{3})$/.test(raw)
        ? raw.replace('-', '')
        : invalid('must be 8-9 digits (transit and institution number), such as "11000000"');
    case 'AU':
      // A BSB: "123456", or written "123-456" / "123 456".
      return /^[0-9]{3}[- ]?[0-9]{3}$/.test(raw)
        ? raw.replace(/[- ]/g, '')
        : invalid('must be a 6-digit BSB, such as "110000" or "110-000"');
    default: {
      if (!ALPHANUMERIC(3, 34).test(raw)) {
        return invalid(
          'must be a BIC (8 or 11 characters) or a national bank code of 3-34 digits and letters',
        );
      }
      const value = raw.toUpperCase();
      if (LOOKS_LIKE_BIC.test(value) && !isValidBIC(value)) {
        return invalid('looks like a BIC (8 or 11 characters) but is not a valid one');
      }
      return value;
    }
  }
}

/**
 * Every bank-detail rule of docs/api.md §5.5 in one place: country, currency, account number,
 * routing number. The error's top-level code is the first problem's code in upper case
 * (ACCOUNT_NUMBER_INVALID, IBAN_INVALID, IBAN_COUNTRY_MISMATCH, ROUTING_NUMBER_INVALID,
 * INVALID_COUNTRY, INVALID_CURRENCY). Messages say what is expected and never repeat the value:
 * an account number must not reach an error body or a log line.
 */
export function checkBankDetails(input: BankDetailsInput): BankDetailsCheck {
  const errors: FieldError[] = [];
  if (!isCountryCode(input.countryCode)) {
    errors.push(problem('countryCode', 'invalid_country', COUNTRY_CODE_MESSAGE));
  }
  if (!isCurrencyCode(input.currency)) {
    errors.push(problem('currency', 'invalid_currency', CURRENCY_CODE_MESSAGE));
  }
  // Without a valid country the account and routing rules cannot be chosen.
  if (errors.some((e) => e.field === 'countryCode')) return { ok: false, errors };

  const accountNumber = checkAccountNumber(input.countryCode, input.accountNumber);
  if (typeof accountNumber !== 'string') errors.push(accountNumber);
  const routingNumber = checkRoutingNumber(input.countryCode, input.routingNumber);
  if (typeof routingNumber !== 'string') errors.push(routingNumber);

  if (typeof accountNumber !== 'string' || typeof routingNumber !== 'string' || errors.length) {
    return { ok: false, errors };
  }
  return {
    ok: true,
    details: {
      countryCode: input.countryCode,
      currency: input.currency,
      accountNumber,
      routingNumber,
    },
  };
}

/**
 * The end of an account number that responses may show (`last4`, and `accountNumber` as
 * "****" + it): its last four characters, but never more than half of them (docs/api.md §5.5), so a
 * short number is never shown whole or nearly whole: 4 or 5 characters show 2, 6 or 7 show 3.
 */
export function visibleLast4(accountNumber: string): string {
  const shown = Math.min(4, Math.floor(accountNumber.length / 2));
  return accountNumber.slice(accountNumber.length - shown);
}
