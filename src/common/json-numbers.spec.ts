import { InexactNumber, isExactNumber, withInexactNumbersMarked } from './json-numbers';

describe('isExactNumber', () => {
  it.each([
    ['1', 1],
    ['1.0', 1],
    ['1e2', 100],
    ['1.50E+1', 15],
    ['-0.25', -0.25],
    ['0.1', 0.1],
    ['9007199254740991', 9007199254740991],
    ['0.1000000000000001', 0.1000000000000001],
    ['123456789012.345', 123456789012.345],
    ['-0', -0],
  ])('takes %p as exact', (source, value) => {
    expect(isExactNumber(source, value)).toBe(true);
  });

  it.each([
    ['12345678901234567890123', Number('12345678901234567890123')],
    ['9007199254740993', Number('9007199254740993')],
    ['0.10000000000000000001', 0.1],
    ['1e-400', 0],
    ['1e400', Infinity],
  ])('takes %p as inexact', (source, value) => {
    expect(isExactNumber(source, value)).toBe(false);
  });
});

describe('withInexactNumbersMarked', () => {
  const parse = (text: string) => withInexactNumbersMarked(text, JSON.parse(text));

  it('returns the parsed value itself when no literal can be inexact', () => {
    const text = '{"a":1.5,"b":"x","c":[1,2,3]}';
    const parsed = JSON.parse(text) as unknown;
    expect(withInexactNumbersMarked(text, parsed)).toBe(parsed);
  });

  it('marks only the numbers that changed, and leaves strings alone', () => {
    expect(
      parse('{"m":{"big":12345678901234567890123,"ok":12,"s":"12345678901234567890123"}}'),
    ).toEqual({
      m: {
        big: new InexactNumber('12345678901234567890123'),
        ok: 12,
        s: '12345678901234567890123',
      },
    });
    expect(parse('[0.10000000000000000001, 1e2]')).toEqual([
      new InexactNumber('0.10000000000000000001'),
      100,
    ]);
  });
});
