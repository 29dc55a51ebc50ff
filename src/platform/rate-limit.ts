import rateLimit, { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { PinoLogger } from 'nestjs-pino';
import { hash } from 'node:crypto';
import { API_KEY_PATTERN } from '../auth/api-keys.service';
import { bearerToken } from '../auth/bearer-token';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ApiError } from '../common/errors';

/** RATE_LIMIT_PER_SECOND counts requests in fixed one-second windows. */
export const RATE_LIMIT_WINDOW_MS = 1000;
const REDIS_PREFIX = 'billing-api:rate-limit:';

const EXEMPT_PATHS = new Set(['/healthz', '/readyz', '/docs', '/docs-json', '/docs-yaml']);

/** Liveness, readiness and the API docs are not limited (probes share one address). */
export function isRateLimitExempt(url: string): boolean {
  // Every API request (/v0/...) is counted: answer it without building the path.
  if (url.startsWith('/v0/')) return false;
  const path = url.split('?')[0];
  return EXEMPT_PATHS.has(path) || path.startsWith('/docs/');
}

/**
 * Whose budget a request spends: its API key's (a hash, so no key is ever kept in memory or in
 * Redis), or its IP address's when it carries nothing shaped like a key.
 */
export function rateLimitKey(request: FastifyRequest): string {
  const token = bearerToken(request.headers.authorization) ?? '';
  if (API_KEY_PATTERN.test(token)) {
    return `key:${hash('sha256', `rate-limit:${token}`, 'hex').slice(0, 40)}`;
  }
  return `ip:${request.ip}`;
}

/** 429; requests without a valid-looking key are counted by client address (rateLimitKey). */
export function rateLimitedError(
  context: { max: number; after: string; ttl: number },
  byApiKey: boolean,
): ApiError {
  return new ApiError(
    'rate_limited',
    `Too many requests: the limit is ${context.max} per second per ` +
      `${byApiKey ? 'API key' : 'client address for requests without an API key'}; retry in ${context.after}`,
    { headers: { 'Retry-After': String(Math.max(1, Math.ceil(context.ttl / 1000))) } },
  );
}

interface Count {
  current: number;
  /** Milliseconds until the window resets. */
  ttl: number;
}

interface Counter {
  incr(key: string, windowMs: number): Promise<Count>;
}

/** Fixed windows in this process's memory. */
export class MemoryCounter implements Counter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private lastPrune = 0;

  incr(key: string, windowMs: number): Promise<Count> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      this.prune(now, windowMs);
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count++;
    return Promise.resolve({ current: window.count, ttl: window.resetAt - now });
  }

  /** Forgets finished windows, at most once per window so a flood of new keys stays cheap. */
  private prune(now: number, windowMs: number): void {
    if (now - this.lastPrune < windowMs) return;
    this.lastPrune = now;
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}

// One round trip, atomic: count, and start the window's expiry on its first request.
const INCR_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}`;

type RedisWithIncr = Redis & {
  billingRateLimitIncr(key: string, windowMs: number): Promise<[number, number]>;
};

function storeFor(counter: Counter): FastifyRateLimitStoreCtor {
  return class implements FastifyRateLimitStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: Count) => void,
      windowMs = RATE_LIMIT_WINDOW_MS,
    ): void {
      counter.incr(key, windowMs).then(
        (count) => callback(null, count),
        (err: Error) => callback(err),
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/**
 * The rate limit of docs/api.md §6 through @fastify/rate-limit: RATE_LIMIT_PER_SECOND
 * requests per second per API key, counted in Redis when REDIS_URL is set (shared by every
 * instance), else in memory. Every counted response carries RateLimit-Limit,
 * RateLimit-Remaining and RateLimit-Reset (IETF draft names); past the limit, 429 rate_limited
 * with Retry-After in the error envelope.
 */
@Injectable()
export class RateLimiter implements OnModuleDestroy {
  private readonly redis?: RedisWithIncr;
  private readonly counter: Counter;
  private redisFailing = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly logger: PinoLogger,
  ) {
    logger.setContext('RateLimiter');
    const memory = new MemoryCounter();
    if (!config.redisUrl) {
      this.counter = memory;
      return;
    }
    const redis = new Redis(config.redisUrl, {
      // Fail fast instead of queueing while disconnected: the fallback answers meanwhile.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 250,
      connectTimeout: 2000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    }) as RedisWithIncr;
    redis.defineCommand('billingRateLimitIncr', { numberOfKeys: 1, lua: INCR_SCRIPT });
    redis.on('error', (err) => this.redisDown(err));
    redis.on('ready', () => this.redisUp());
    this.redis = redis;
    // Windows in Redis, shared by every instance. When Redis does not answer (down, or slower
    // than its 250 ms command timeout) the count falls back to this process's memory, so the API
    // stays up and still limited, per instance, until Redis is back.
    this.counter = {
      incr: async (key, windowMs) => {
        try {
          const [current, ttl] = await redis.billingRateLimitIncr(REDIS_PREFIX + key, windowMs);
          return { current, ttl };
        } catch (err) {
          this.redisDown(err);
          return memory.incr(key, windowMs);
        }
      },
    };
  }

  /** Registers the plugin and its hook on every request, 404s included. */
  async register(fastify: FastifyInstance): Promise<void> {
    await this.connected();
    await fastify.register(rateLimit, {
      global: false,
      max: this.config.rateLimitPerSecond,
      timeWindow: RATE_LIMIT_WINDOW_MS,
      enableDraftSpec: true,
      keyGenerator: rateLimitKey,
      allowList: (request) => isRateLimitExempt(request.url),
      store: storeFor(this.counter),
      skipOnError: true,
      errorResponseBuilder: (request, context) =>
        rateLimitedError(context, rateLimitKey(request).startsWith('key:')),
    });
    fastify.addHook('onRequest', fastify.rateLimit());
  }

  /** Waits (at most 2 s) for the first connection, so the first requests count in Redis. */
  private async connected(): Promise<void> {
    const redis = this.redis;
    if (!redis || redis.status === 'ready') return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, 2000);
      redis.once('ready', resolve);
      redis.once('error', resolve);
    });
    clearTimeout(timer);
  }

  onModuleDestroy(): void {
    this.redis?.disconnect();
  }

  private redisDown(err: unknown): void {
    if (this.redisFailing) return;
    this.redisFailing = true;
    this.logger.warn(
      { err },
      'Redis does not answer: rate limits are counted per instance until it is back',
    );
  }

  private redisUp(): void {
    if (!this.redisFailing) return;
    this.redisFailing = false;
    this.logger.info('Redis answers again: rate limits are shared between instances');
  }
}
