import { code as currencyCode } from 'currency-codes';
import { Decimal as BaseDecimal } from 'decimal.js';

/**
 * The one Decimal every amount of an invoice is computed with (docs/api.md §5.12): exact for
 * anything the API stores (18 integer and 12 fractional digits, multiplied together), and
 * rounding half away from zero (decimal.js calls it ROUND_HALF_UP) whenever a rounding is asked.
 */
export const Decimal = BaseDecimal.clone({
  precision: 200,
  rounding: BaseDecimal.ROUND_HALF_UP,
  toExpNeg: -100,
  toExpPos: 100,
});
export type Decimal = InstanceType<typeof Decimal>;

/** ISO 4217 codes the API accepts that the currency-codes list does not have yet (src/common/iso.ts). */
const DIGITS_SINCE_LIBRARY: Record<string, number> = { XCG: 2 };

/** The number of minor-unit digits of an ISO 4217 currency: USD 2, JPY 0, BHD 3. */
export function minorUnitDigits(currency: string): number {
  const digits = currencyCode(currency)?.digits ?? DIGITS_SINCE_LIBRARY[currency];
  if (digits === undefined) throw new Error(`unknown currency ${currency}`);
  return digits;
}

/** `value` rounded once, half away from zero, to the currency's minor unit. */
export function roundToMinorUnit(value: Decimal, currency: string): Decimal {
  return value.toDecimalPlaces(minorUnitDigits(currency), Decimal.ROUND_HALF_UP);
}

/** An amount printed with exactly the currency's digits ("12.30", "1230", "12.300"). */
export function formatMoney(value: Decimal, currency: string): string {
  const digits = minorUnitDigits(currency);
  const printed = value.toFixed(digits, Decimal.ROUND_HALF_UP);
  // -0 prints as "-0.00": an amount is never negative zero.
  return /^-0(\.0+)?$/.test(printed) ? printed.slice(1) : printed;
}

/** A quantity printed exactly, without trailing zeros or an exponent ("1.5", "0", "12"). */
export function formatQuantity(value: Decimal): string {
  return value.toFixed();
}
