import { ChargedPrice, PeriodUsage, chargeFor, proratedFixedFee } from './price-charge';
import { Decimal, formatMoney, roundToMinorUnit } from './money';

export interface TaxTerms {
  behavior: 'exclusive' | 'inclusive';
  rate: string;
}

export interface InvoiceTotals {
  subtotal: string;
  tax: { behavior: 'exclusive' | 'inclusive'; rate: string; amount: string };
  total: string;
}

/** A line's amount: the exact charge rounded once, printed with the currency's digits. */
export function lineAmount(exact: Decimal, currency: string): string {
  return formatMoney(roundToMinorUnit(exact, currency), currency);
}

/** The amount of a usage line: what `price` charges for `usage`, rounded once. */
export function usageLineAmount(price: ChargedPrice, usage: PeriodUsage, currency: string): string {
  return lineAmount(chargeFor(price, usage), currency);
}

/** The amount of a fixed-fee line, prorated by milliseconds and rounded once. */
export function fixedFeeLineAmount(
  fixedFee: string,
  period: { start: Date; end: Date },
  billed: { start: Date; end: Date },
  currency: string,
): string {
  return lineAmount(proratedFixedFee(fixedFee, period, billed), currency);
}

/**
 * subtotal = the sum of the line amounts (each already rounded); tax rounded once on the subtotal:
 * exclusive adds subtotal × rate / 100 to the total, inclusive takes subtotal × rate / (100 + rate)
 * out of a total equal to the subtotal.
 */
export function invoiceTotals(
  lineAmounts: string[],
  tax: TaxTerms,
  currency: string,
): InvoiceTotals {
  const subtotal = lineAmounts.reduce((sum, amount) => sum.plus(amount), new Decimal(0));
  const rate = new Decimal(tax.rate);
  const exactTax =
    tax.behavior === 'exclusive'
      ? subtotal.times(rate).div(100)
      : subtotal.times(rate).div(rate.plus(100));
  const taxAmount = roundToMinorUnit(exactTax, currency);
  const total = tax.behavior === 'exclusive' ? subtotal.plus(taxAmount) : subtotal;
  return {
    subtotal: formatMoney(subtotal, currency),
    tax: { behavior: tax.behavior, rate: tax.rate, amount: formatMoney(taxAmount, currency) },
    total: formatMoney(total, currency),
  };
}
