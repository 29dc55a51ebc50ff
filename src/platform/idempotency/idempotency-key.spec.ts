import { ValidationFailedError } from '../../common/errors';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../common/canonical-json';
import { fingerprintKey, parseIdempotencyKey, requestFingerprint } from './idempotency-key';

describe('parseIdempotencyKey', () => {
  it('returns undefined when there is no header', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it.each(['a', '3f1c9c1e-8d4b-4b6e-9a57-2f4c1d1e0b9a', 'order 42: retry #1', 'x'.repeat(255)])(
    'accepts %j',
    (key) => {
      expect(parseIdempotencyKey(key)).toBe(key);
    },
  );

  it.each([
    ['empty', ''],
    ['256 characters', 'x'.repeat(256)],
    ['non-ASCII', 'clé'],
    ['a control character', 'a\tb'],
    ['sent twice', ['a', 'b']],
  ])('rejects a key that is %s with INVALID_IDEMPOTENCY_KEY', (_label, key) => {
    expect(() => parseIdempotencyKey(key)).toThrow(ValidationFailedError);
    try {
      parseIdempotencyKey(key);
    } catch (err) {
      expect((err as ValidationFailedError).code).toBe('INVALID_IDEMPOTENCY_KEY');
      expect((err as ValidationFailedError).errors?.[0].field).toBe('Idempotency-Key');
    }
  });
});

describe('requestFingerprint', () => {
  const key = fingerprintKey(Buffer.alloc(32, 7));
  const fingerprint = (method: string, path: string, body: unknown, query?: unknown) =>
    requestFingerprint(key, { method, path, body, query });
  const base = fingerprint('POST', '/v0/plans', { name: 'Pro', prices: ['a', 'b'] });

  it('is the same for the same request, whatever the key order', () => {
    expect(fingerprint('post', '/v0/plans', { prices: ['a', 'b'], name: 'Pro' })).toBe(base);
  });

  it.each([
    ['method', () => fingerprint('PATCH', '/v0/plans', { name: 'Pro', prices: ['a', 'b'] })],
    ['path', () => fingerprint('POST', '/v0/products', { name: 'Pro', prices: ['a', 'b'] })],
    [
      'query',
      () => fingerprint('POST', '/v0/plans', { name: 'Pro', prices: ['a', 'b'] }, { x: '1' }),
    ],
    ['body', () => fingerprint('POST', '/v0/plans', { name: 'Pro', prices: ['b', 'a'] })],
    [
      'value type',
      () => fingerprint('POST', '/v0/plans', { name: 'Pro', prices: ['a', 'b'], n: 1 }),
    ],
  ])('differs when the %s differs', (_label, other) => {
    expect(other()).not.toBe(base);
    expect(other()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is keyed: without the encryption key a guess of the body cannot be confirmed', () => {
    const body = { accountNumber: '000123456789' };
    const mine = requestFingerprint(key, { method: 'POST', path: '/v0/externalAccounts', body });
    const otherKey = fingerprintKey(Buffer.alloc(32, 8));
    expect(
      requestFingerprint(otherKey, { method: 'POST', path: '/v0/externalAccounts', body }),
    ).not.toBe(mine);
    // Nor is it a plain SHA-256 of what was hashed.
    const plain = createHash('sha256')
      .update(`POST /v0/externalAccounts\n{}\n${canonicalJson(body)}`)
      .digest('hex');
    expect(mine).not.toBe(plain);
  });
});
