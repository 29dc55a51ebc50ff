import { bearerToken } from './bearer-token';

describe('bearerToken', () => {
  const key = `sk_live_${'A'.repeat(32)}`;

  it.each([[`Bearer ${key}`], [`bearer ${key}`], [`BEARER ${key}`], [`Bearer    ${key}`]])(
    'reads the key of %p',
    (header) => {
      expect(bearerToken(header)).toBe(key);
    },
  );

  it('reads a b64token with its padding (RFC 6750)', () => {
    expect(bearerToken('Bearer a-b.c_d~e+f/g==')).toBe('a-b.c_d~e+f/g==');
  });

  it.each([
    [undefined],
    [['Bearer x']],
    [''],
    ['Bearer'],
    ['Bearer '],
    [`Bearer\t${key}`],
    [`Bearer${key}`],
    [`Bearer ${key} x`],
    [`Basic ${key}`],
    [`Bearers ${key}`],
    ['Bearer a=b'],
  ])('refuses %p', (header) => {
    expect(bearerToken(header)).toBeUndefined();
  });
});
