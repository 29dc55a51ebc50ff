import Decimal from 'decimal.js';
import { DECIMAL_PATTERN } from '../common/money/decimal';

/**
 * What a usage event is worth to a billable metric (docs/api.md §5.11): the value at the metric's
 * `valueProperty`, and the exact arithmetic the aggregations and invoices use on such values.
 */

/**
 * Decimal arithmetic wide enough for any sum of values: 18 integer and 12 fractional digits each,
 * and a million events add at most 7 integer digits. No sum here ever rounds.
 */
export const UsageDecimal = Decimal.clone({ precision: 80, rounding: Decimal.ROUND_HALF_UP });

/** `$.a.b` → ['a', 'b'] (the pattern of docs/api.md §5.2 has been checked when the metric was made). */
export function pathOf(valueProperty: string): string[] {
  return valueProperty.slice(2).split('.');
}

/** The field path of a value in a request: `$.a.b` of event 3 → `events[3].data.a.b`. */
export function valueField(index: number, valueProperty: string): string {
  return `events[${index}].data.${valueProperty.slice(2)}`;
}

/** What `data` holds at `path` (undefined when absent). */
export function valueAt(data: unknown, path: readonly string[]): unknown {
  let current = data;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * A value as a decimal string of docs/api.md §1, or undefined when it is not one: a decimal
 * string as sent, or a non-negative JSON number taken as the shortest decimal that prints it
 * (`0.1` is "0.1"). A number whose shortest form needs an exponent (1e21, 1e-7) is refused, and
 * so is one JSON cannot carry exactly (the body parser marks those; they are not numbers here).
 */
export function decimalValue(raw: unknown): string | undefined {
  if (typeof raw === 'string') return DECIMAL_PATTERN.test(raw) ? raw : undefined;
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0) return undefined;
  const text = String(raw);
  return DECIMAL_PATTERN.test(text) ? text : undefined;
}

/** A value UNIQUE_COUNT tells apart: any string or number, compared as sent ("1" is not 1). */
export function uniqueKey(raw: unknown): string | undefined {
  if (typeof raw === 'string') return `s${raw}`;
  if (typeof raw === 'number' && Number.isFinite(raw)) return `n${String(raw)}`;
  return undefined;
}

/** A decimal's canonical text: no exponent, no trailing fractional zeros ("1.50" → "1.5"). */
export function canonicalDecimal(value: Decimal.Value): string {
  return new UsageDecimal(value).toFixed();
}

/** The exact sum of decimal strings, as a canonical decimal string ("0" for none). */
export function sumDecimals(values: Iterable<string>): string {
  let sum = new UsageDecimal(0);
  for (const value of values) sum = sum.plus(value);
  return sum.toFixed();
}

/** The largest of decimal strings, as a canonical decimal string ("0" for none). */
export function maxDecimal(values: Iterable<string>): string {
  let max: Decimal | undefined;
  for (const value of values) {
    const d = new UsageDecimal(value);
    if (max === undefined || d.greaterThan(max)) max = d;
  }
  return max === undefined ? '0' : max.toFixed();
}
