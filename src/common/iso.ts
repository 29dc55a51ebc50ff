import { codes as currencyCodes } from 'currency-codes';
import { isValid as isCountryAlpha2 } from 'i18n-iso-countries';
import { ValidationOptions, registerDecorator } from 'class-validator';
import { documented } from './validation/decorators';

const CURRENCIES = new Set(currencyCodes());

/** An ISO 4217 alphabetic code that exists, in upper case. */
export function isCurrencyCode(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Z]{3}$/.test(value) && CURRENCIES.has(value);
}

/** An ISO 3166-1 alpha-2 code that exists, in upper case. */
export function isCountryCode(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Z]{2}$/.test(value) && isCountryAlpha2(value);
}

function isoDecorator(
  name: string,
  check: (value: unknown) => boolean,
  message: string,
  code: string,
  options?: ValidationOptions,
): PropertyDecorator {
  return (target: object, propertyKey: string | symbol) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyKey),
      options: { message, context: { code }, ...options },
      validator: { validate: check },
    });
}

export const IsCurrencyCode = (options?: ValidationOptions) =>
  documented(
    { pattern: '^[A-Z]{3}$' },
    isoDecorator(
      'isCurrencyCode',
      isCurrencyCode,
      'must be an ISO 4217 currency code in upper case, such as "USD"',
      'invalid_currency',
      options,
    ),
  );

export const IsCountryCode = (options?: ValidationOptions) =>
  documented(
    { pattern: '^[A-Z]{2}$' },
    isoDecorator(
      'isCountryCode',
      isCountryCode,
      'must be an ISO 3166-1 alpha-2 country code in upper case, such as "US"',
      'invalid_country',
      options,
    ),
  );
