import type { FastifyRequest } from 'fastify';
import { MemoryCounter, isRateLimitExempt, rateLimitKey } from './rate-limit';

const requestWith = (authorization?: string) =>
  ({ headers: authorization ? { authorization } : {}, ip: '10.0.0.7' }) as FastifyRequest;

describe('rateLimitKey', () => {
  const key = 'sk_live_' + 'A'.repeat(32);

  it('counts a request with an API key under a hash of the key, never the key', () => {
    const id = rateLimitKey(requestWith(`Bearer ${key}`));
    expect(id).toMatch(/^key:[0-9a-f]{40}$/);
    expect(id).not.toContain('AAAA');
    expect(rateLimitKey(requestWith(`Bearer ${key}`))).toBe(id);
    expect(rateLimitKey(requestWith(`Bearer sk_live_${'B'.repeat(32)}`))).not.toBe(id);
  });

  it('reads the scheme name in any case, as the guard does', () => {
    expect(rateLimitKey(requestWith(`bearer ${key}`))).toBe(
      rateLimitKey(requestWith(`Bearer ${key}`)),
    );
  });

  it.each([
    ['no header', undefined],
    ['another scheme', `Basic ${key}`],
    ['a token not shaped like a key', 'Bearer hello'],
  ])('counts a request with %s under its IP address', (_label, header) => {
    expect(rateLimitKey(requestWith(header))).toBe('ip:10.0.0.7');
  });
});

describe('isRateLimitExempt', () => {
  it.each([
    ['/healthz', true],
    ['/readyz?x=1', true],
    ['/docs', true],
    ['/docs/swagger-ui.css', true],
    ['/docs-json', true],
    ['/v0/plans', false],
    ['/healthzz', false],
    ['/v0/docs', false],
  ])('%s -> %s', (url, expected) => {
    expect(isRateLimitExempt(url)).toBe(expected);
  });
});

describe('MemoryCounter', () => {
  afterEach(() => jest.useRealTimers());

  it('counts within a window and starts again when it ends', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const counter = new MemoryCounter();
    expect(await counter.incr('a', 1000)).toEqual({ current: 1, ttl: 1000 });
    jest.setSystemTime(1_000_400);
    expect(await counter.incr('a', 1000)).toEqual({ current: 2, ttl: 600 });
    expect(await counter.incr('b', 1000)).toEqual({ current: 1, ttl: 1000 });
    jest.setSystemTime(1_001_000);
    expect(await counter.incr('a', 1000)).toEqual({ current: 1, ttl: 1000 });
  });
});
