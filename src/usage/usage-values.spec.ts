import { decimalValue, maxDecimal, sumDecimals, uniqueKey, valueAt } from './usage-values';
import { fold, windowEndAfter } from './usage-aggregator';

describe('usage values', () => {
  it.each<[unknown, string | undefined]>([
    ['12.5', '12.5'],
    ['0.000000000001', '0.000000000001'],
    ['999999999999999999.999999999999', '999999999999999999.999999999999'],
    [0.1, '0.1'],
    [1200, '1200'],
    [0, '0'],
    [123456789.123, '123456789.123'],
    ['1e3', undefined],
    [1e21, undefined],
    [1e-7, undefined],
    [-1, undefined],
    ['-1', undefined],
    ['01', undefined],
    [' 1', undefined],
    ['0.0000000000001', undefined],
    [Number.NaN, undefined],
    [true, undefined],
    [null, undefined],
    [{}, undefined],
  ])('reads %p as %p', (raw, expected) => {
    expect(decimalValue(raw)).toBe(expected);
  });

  it('tells a string from a number for UNIQUE_COUNT', () => {
    expect(uniqueKey('1')).not.toBe(uniqueKey(1));
    expect(uniqueKey(1)).toBe(uniqueKey(1.0));
    expect(uniqueKey({})).toBeUndefined();
  });

  it('finds a nested value and nothing on the way through a non-object', () => {
    expect(valueAt({ a: { b: '3' } }, ['a', 'b'])).toBe('3');
    expect(valueAt({ a: ['3'] }, ['a', '0'])).toBeUndefined();
    expect(valueAt({ a: '3' }, ['a', 'b'])).toBeUndefined();
  });

  it('sums 12 fractional digits a million times exactly', () => {
    const values = function* () {
      for (let i = 0; i < 1_000_000; i++) yield '0.000000000001';
    };
    expect(sumDecimals(values())).toBe('0.000001');
    const big = function* () {
      for (let i = 0; i < 1_000_000; i++) yield '999999999999999999.999999999999';
    };
    expect(sumDecimals(big())).toBe('999999999999999999999999.999999');
  });

  it('adds what floats cannot: 0.1 + 0.2 is 0.3', () => {
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(sumDecimals([])).toBe('0');
  });

  it('compares decimals exactly for MAX', () => {
    expect(maxDecimal(['9.99', '10', '10.000000000001'])).toBe('10.000000000001');
    expect(maxDecimal([])).toBe('0');
  });
});

describe('fold (the aggregation over rows read)', () => {
  const t = new Date('2026-01-01T00:00:00.000Z');
  const rows = (...values: unknown[]) => values.map((value) => ({ timestamp: t, value }));

  it.each<[Parameters<typeof fold>[0], unknown[], string]>([
    ['COUNT', [1, 2, 3], '3'],
    ['SUM', ['0.1', 0.2, '1.000000000001'], '1.300000000001'],
    ['MAX', ['2', 10, '9.5'], '10'],
    ['UNIQUE_COUNT', ['a', 'a', 1, '1', 1], '3'],
    ['LATEST', ['1', '2', '3.5'], '3.5'],
    ['LATEST', [], '0'],
    ['MAX', [], '0'],
    ['SUM', [], '0'],
  ])('%s of %p is %s', (aggregation, values, expected) => {
    expect(fold(aggregation, rows(...values))).toBe(expected);
  });
});

describe('windowEndAfter', () => {
  it.each([
    ['2026-01-31T23:59:59.999Z', 'hour', '2026-02-01T00:00:00.000Z'],
    ['2026-01-31T10:30:00.000Z', 'hour', '2026-01-31T11:00:00.000Z'],
    ['2026-01-31T10:00:00.000Z', 'hour', '2026-01-31T11:00:00.000Z'],
    ['2028-02-28T10:00:00.000Z', 'day', '2028-02-29T00:00:00.000Z'],
    ['2027-12-31T00:00:00.000Z', 'day', '2028-01-01T00:00:00.000Z'],
  ] as const)('%s, %s → %s', (start, size, end) => {
    expect(windowEndAfter(new Date(start), size).toISOString()).toBe(end);
  });
});
