/**
 * Money and rates are decimal strings end to end (docs/api.md §1): never parsed into a float,
 * stored as text, and compared digit by digit.
 */
export const DECIMAL_PATTERN = /^(0|[1-9][0-9]{0,17})(\.[0-9]{1,12})?$/;

export function isDecimalString(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL_PATTERN.test(value);
}

/** Compares two valid decimal strings exactly: -1, 0 or 1. */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const [ai, af = ''] = a.split('.');
  const [bi, bf = ''] = b.split('.');
  if (ai.length !== bi.length) return ai.length < bi.length ? -1 : 1;
  if (ai !== bi) return ai < bi ? -1 : 1;
  const width = Math.max(af.length, bf.length);
  const ap = af.padEnd(width, '0');
  const bp = bf.padEnd(width, '0');
  if (ap === bp) return 0;
  return ap < bp ? -1 : 1;
}

/** The number of digits after the point. */
export function fractionDigits(value: string): number {
  const point = value.indexOf('.');
  return point === -1 ? 0 : value.length - point - 1;
}
