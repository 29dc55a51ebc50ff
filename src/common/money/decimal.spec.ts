import { compareDecimals, fractionDigits, isDecimalString } from './decimal';

describe('isDecimalString', () => {
  it.each([
    '0',
    '1',
    '0.25',
    '0.00002',
    '0.000000000001',
    '123456789012345678',
    '123456789012345678.123456789012',
    '10.5',
  ])('accepts %s', (value) => expect(isDecimalString(value)).toBe(true));

  it.each([
    ['1e-5', '1e-5'],
    ['a negative', '-1'],
    ['a leading zero', '01'],
    ['a leading space', ' 1'],
    ['a trailing point', '1.'],
    ['a bare fraction', '.5'],
    ['19 integer digits', '1234567890123456789'],
    ['13 fractional digits', '0.0000000000001'],
    ['an empty string', ''],
    ['a comma', '1,5'],
    ['a plus sign', '+1'],
  ])('rejects %s', (_label, value) => expect(isDecimalString(value)).toBe(false));

  it.each([1.5, 0, null, undefined, {}, ['1']])('rejects the non-string %p', (value) =>
    expect(isDecimalString(value)).toBe(false),
  );
});

describe('compareDecimals', () => {
  it.each([
    ['1', '2', -1],
    ['2', '1', 1],
    ['1.5', '1.50', 0],
    ['0.1', '0.09', 1],
    ['10', '9.999999999999', 1],
    ['123456789012345678.000000000001', '123456789012345678', 1],
    ['0', '0.000000000000', 0],
  ] as const)('compares %s with %s', (a, b, expected) => {
    expect(compareDecimals(a, b)).toBe(expected);
    expect(compareDecimals(b, a)).toBe(-expected || 0);
  });
});

describe('fractionDigits', () => {
  it.each([
    ['1', 0],
    ['1.5', 1],
    ['0.0001', 4],
  ] as const)('counts the digits of %s', (value, digits) =>
    expect(fractionDigits(value)).toBe(digits),
  );
});
