import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { ensurePrivateDirectory } from '../common/private-files';
import { isBlank } from '../common/text';

export type DatabaseKind = 'sqlite' | 'postgres';

export interface DatabaseConfig {
  kind: DatabaseKind;
  /** The URL as configured (never logged: it may hold a password). */
  url: string;
  /** SQLite: a file path or ':memory:'. */
  sqlitePath?: string;
  /** PostgreSQL: DATABASE_POOL_SIZE (default 10), the connections of requests and other work. */
  poolSize?: number;
  /**
   * PostgreSQL: DATABASE_DISPATCHER_POOL_SIZE (default 2), the connections of the webhook
   * dispatcher's units of work, a pool of their own (see UnitOptions in database.ts).
   */
  dispatcherPoolSize?: number;
  /**
   * SQLite file: WAL checkpoints run in a thread of their own (SqliteCheckpointer), not in the
   * commits. Set for a database file; the command line turns it off (one write and out).
   */
  backgroundCheckpoints?: boolean;
}

export interface AppConfig {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  logLevel: string;
  /** LOG_FORMAT: `json` (default: one JSON object a line) or `pretty` (readable, for a terminal). */
  logFormat: 'json' | 'pretty';
  database: DatabaseConfig;
  /** 32 raw bytes: the AES-256-GCM key for bank account numbers. */
  encryptionKey: Buffer;
  /** Set when the key was generated into the data folder on this start. */
  encryptionKeyGeneratedAt?: string;
  bootstrapApiKey?: string;
  bootstrapOrganizationName: string;
  /** Outside production and tests: print a development key on the first start of an empty database. */
  printDevelopmentKey: boolean;
  rateLimitPerSecond: number;
  redisUrl?: string;
  /** Fastify's trustProxy: which proxies' X-Forwarded-For to believe for the client address. */
  trustProxy: boolean | number | string;
  /** Seconds to wait for requests in flight on SIGTERM. */
  shutdownTimeoutSeconds: number;
  /** Seconds a request's headers and body have to arrive in full before it is answered 408. */
  requestTimeoutSeconds: number;
  /**
   * METRICS_PORT: where Prometheus scrapes /metrics, on a server of its own (never the API's
   * port). Unset: no metrics server. 0 picks a free port (the tests use it).
   */
  metricsPort?: number;
  events: EventsConfig;
  webhooks: WebhooksConfig;
  verification: VerificationConfig;
}

/** Events (docs/api.md §5.6). */
export interface EventsConfig {
  /** EVENT_RETENTION_DAYS (default 30): events older than this are deleted by the sweep. */
  retentionDays: number;
  /** EVENT_RETENTION_SWEEP_SECONDS (default 3600): how often the retention sweep runs. */
  sweepIntervalSeconds: number;
  /**
   * EVENTS_RECORDING (`on` or `off`, default on). Off: `EventsService.record` records nothing, so
   * no event is kept and no webhook queued. Only for measuring what events cost (npm run
   * bench:events); it breaks the contract (docs/api.md §5.6), and start-up warns.
   */
  recording: boolean;
}

/** Webhook delivery (docs/api.md §5.7). */
export interface WebhooksConfig {
  /**
   * WEBHOOK_RETRY_SCHEDULE: the delays in seconds before each retry after a failed attempt
   * (default 5,300,1800,7200,18000,36000,36000: 8 attempts over 27.6 hours); after the last one,
   * given up.
   */
  retryScheduleSeconds: number[];
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS=true: http:// and internal addresses allowed (development, tests). */
  allowPrivateNetworks: boolean;
  /** WEBHOOK_DISPATCHER=off: this instance records events but delivers nothing (default on). */
  dispatcherEnabled: boolean;
  /** WEBHOOK_POLL_INTERVAL_MS (default 500): how often the dispatcher looks for due attempts. */
  pollIntervalMs: number;
  /** WEBHOOK_CONCURRENCY (default 16): attempts in flight in this instance, all endpoints together. */
  concurrency: number;
  /**
   * WEBHOOK_ENDPOINT_CONCURRENCY (default 4): attempts in flight in this instance to one endpoint,
   * more for one that answers fast (DeliverySlots).
   */
  endpointConcurrency: number;
  /**
   * WEBHOOK_ENDPOINT_CONCURRENCY_MAX (default half of WEBHOOK_CONCURRENCY, at least
   * WEBHOOK_ENDPOINT_CONCURRENCY): the most attempts in flight to one endpoint that answers fast.
   * Equal to WEBHOOK_ENDPOINT_CONCURRENCY, an endpoint's limit never grows.
   */
  endpointConcurrencyMax: number;
  /** WEBHOOK_TIMEOUT_SECONDS (default 10): an answer later than this is a failure. */
  timeoutSeconds: number;
  /**
   * WEBHOOK_LEASE_SECONDS (default 60): how long a claimed attempt is reserved for the instance
   * that claimed it; an attempt whose process died is made again after this. Above the timeout.
   */
  leaseSeconds: number;
  /** WEBHOOK_DISABLE_AFTER_SECONDS (default 432000, 5 days) of failing every attempt: disabled. */
  disableAfterSeconds: number;
}

/** Bank-account verification (docs/api.md §5.5, docs/verification.md). */
export interface VerificationConfig {
  /**
   * SANDBOX_VERIFICATION_DELAY_MS (default 1000): how long after a create or a resubmission the
   * test-mode sandbox decides an account.
   */
  sandboxDelayMs: number;
  /** VERIFICATION_POLL_INTERVAL_MS (default 1000): how often the worker looks for due verifications. */
  pollIntervalMs: number;
  /**
   * VERIFICATION_LEASE_SECONDS (default 60): how long a claimed verification is reserved for the
   * instance that claimed it; one whose process died is claimed again after this.
   */
  leaseSeconds: number;
  /** VERIFICATION_WORKER=off: this instance decides no verification itself (default on). */
  workerEnabled: boolean;
}

/** docs/api.md §5.7: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

function parseRetrySchedule(problems: string[], raw: string | undefined): number[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_WEBHOOK_RETRY_SCHEDULE;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 20 || !parts.every((p) => /^\d{1,7}$/.test(p))) {
    problems.push(
      'WEBHOOK_RETRY_SCHEDULE must be 1-20 comma-separated whole numbers of seconds (0-9999999), as in 5,300,1800',
    );
    return DEFAULT_WEBHOOK_RETRY_SCHEDULE;
  }
  return parts.map(Number);
}

/** A switch spelled `on` or `off`, nothing else. */
function parseOnOff(
  problems: string[],
  name: string,
  raw: string | undefined,
  fallback: boolean,
): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'on' || raw === 'off') return raw === 'on';
  problems.push(`${name} must be on or off (got "${raw}")`);
  return fallback;
}

function parseBoolean(
  problems: string[],
  name: string,
  raw: string | undefined,
  fallback: boolean,
): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'on'].includes(raw)) return true;
  if (['false', '0', 'off'].includes(raw)) return false;
  problems.push(`${name} must be true or false (got "${raw}")`);
  return fallback;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const API_KEY_PATTERN = /^sk_(live|test)_[0-9A-Za-z]{32}$/;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const DEFAULT_DATABASE_URL = 'sqlite:data/billing.sqlite';
/** PostgreSQL connections per instance: for requests and other work, and for the dispatcher. */
export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_DISPATCHER_POOL_SIZE = 2;

function parseInteger(
  problems: string[],
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
    return fallback;
  }
  return Number(raw);
}

export function parseDatabaseUrl(url: string): DatabaseConfig | string {
  if (url === 'sqlite::memory:') return { kind: 'sqlite', url, sqlitePath: ':memory:' };
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (path === '') return 'DATABASE_URL sqlite: needs a path, as in sqlite:data/billing.sqlite';
    return { kind: 'sqlite', url, sqlitePath: path };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      const parsed = new URL(url);
      if (!parsed.hostname) return 'DATABASE_URL postgres:// needs a host';
    } catch {
      return 'DATABASE_URL is not a valid postgres:// URL';
    }
    return { kind: 'postgres', url };
  }
  return 'DATABASE_URL must start with sqlite: or postgres:// (got an unsupported scheme)';
}

/** The folder that holds the SQLite file and a generated encryption key. */
export function dataFolder(database: DatabaseConfig): string {
  if (database.kind === 'sqlite' && database.sqlitePath && database.sqlitePath !== ':memory:') {
    return dirname(resolve(database.sqlitePath));
  }
  return resolve('data');
}

function loadEncryptionKey(
  problems: string[],
  raw: string | undefined,
  env: AppConfig['env'],
  database: DatabaseConfig | undefined,
): { key: Buffer; generatedAt?: string } {
  if (raw !== undefined && raw !== '') {
    const key = /^[A-Za-z0-9+/]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64') : Buffer.alloc(0);
    if (key.length !== 32) {
      problems.push('ENCRYPTION_KEY must be 32 bytes encoded in base64 (44 characters)');
    }
    return { key };
  }
  if (env === 'production') {
    problems.push('ENCRYPTION_KEY is required when NODE_ENV=production');
    return { key: Buffer.alloc(0) };
  }
  if (!database) return { key: Buffer.alloc(0) };
  // Outside production a key is generated once into the data folder and reused on later starts.
  const file = join(dataFolder(database), 'encryption.key');
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) problems.push(`ENCRYPTION_KEY file ${file} does not hold 32 bytes`);
    return { key };
  }
  ensurePrivateDirectory(dirname(file));
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  return { key, generatedAt: file };
}

/**
 * Reads and validates the whole configuration once. Every problem is collected so that one
 * start-up names every bad variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const problems: string[] = [];

  const nodeEnv = env.NODE_ENV ?? 'development';
  if (!['development', 'production', 'test'].includes(nodeEnv)) {
    problems.push(`NODE_ENV must be development, production or test (got "${nodeEnv}")`);
  }
  const appEnv = (
    ['development', 'production', 'test'].includes(nodeEnv) ? nodeEnv : 'development'
  ) as AppConfig['env'];

  const port = parseInteger(problems, 'PORT', env.PORT, 3000, 0, 65535);
  const rateLimitPerSecond = parseInteger(
    problems,
    'RATE_LIMIT_PER_SECOND',
    env.RATE_LIMIT_PER_SECOND,
    100,
    1,
    1_000_000,
  );
  const shutdownTimeoutSeconds = parseInteger(
    problems,
    'SHUTDOWN_TIMEOUT_SECONDS',
    env.SHUTDOWN_TIMEOUT_SECONDS,
    10,
    0,
    600,
  );
  const requestTimeoutSeconds = parseInteger(
    problems,
    'REQUEST_TIMEOUT_SECONDS',
    env.REQUEST_TIMEOUT_SECONDS,
    30,
    1,
    600,
  );

  const metricsPort =
    env.METRICS_PORT === undefined || env.METRICS_PORT === ''
      ? undefined
      : parseInteger(problems, 'METRICS_PORT', env.METRICS_PORT, 0, 0, 65535);
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) {
    problems.push(
      `METRICS_PORT must differ from PORT (both ${port}): metrics are never served on the API's port`,
    );
  }

  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }

  const logFormat = env.LOG_FORMAT || 'json';
  if (logFormat !== 'json' && logFormat !== 'pretty') {
    problems.push(`LOG_FORMAT must be json or pretty (got "${logFormat}")`);
  }

  const parsedDb = parseDatabaseUrl(env.DATABASE_URL || DEFAULT_DATABASE_URL);
  const database = typeof parsedDb === 'string' ? undefined : parsedDb;
  if (typeof parsedDb === 'string') problems.push(parsedDb);
  const poolSize = parseInteger(
    problems,
    'DATABASE_POOL_SIZE',
    env.DATABASE_POOL_SIZE,
    DEFAULT_POOL_SIZE,
    1,
    1000,
  );
  const dispatcherPoolSize = parseInteger(
    problems,
    'DATABASE_DISPATCHER_POOL_SIZE',
    env.DATABASE_DISPATCHER_POOL_SIZE,
    DEFAULT_DISPATCHER_POOL_SIZE,
    1,
    100,
  );
  if (database?.kind === 'postgres') Object.assign(database, { poolSize, dispatcherPoolSize });
  if (database?.kind === 'sqlite')
    database.backgroundCheckpoints = database.sqlitePath !== ':memory:';

  const bootstrapApiKey = env.BOOTSTRAP_API_KEY || undefined;
  if (bootstrapApiKey !== undefined && !API_KEY_PATTERN.test(bootstrapApiKey)) {
    problems.push('BOOTSTRAP_API_KEY must look like sk_live_ or sk_test_ and 32 letters or digits');
  }
  const bootstrapOrganizationName = env.BOOTSTRAP_ORGANIZATION_NAME ?? 'Default';
  if (isBlank(bootstrapOrganizationName) || [...bootstrapOrganizationName].length > 200) {
    problems.push('BOOTSTRAP_ORGANIZATION_NAME must be 1-200 characters and not blank');
  }

  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\/\S+$/.test(redisUrl)) {
    problems.push('REDIS_URL must be a redis:// or rediss:// URL');
  }

  const host = env.HOST || '0.0.0.0';

  const rawTrustProxy = (env.TRUST_PROXY ?? '').trim();
  let trustProxy: boolean | number | string = false;
  if (rawTrustProxy === '' || rawTrustProxy === 'false') trustProxy = false;
  else if (rawTrustProxy === 'true') trustProxy = true;
  else if (/^\d{1,2}$/.test(rawTrustProxy)) trustProxy = Number(rawTrustProxy);
  else if (/^[0-9a-fA-F.:/]+(\s*,\s*[0-9a-fA-F.:/]+)*$/.test(rawTrustProxy))
    trustProxy = rawTrustProxy;
  else {
    problems.push(
      'TRUST_PROXY must be true, false, a number of hops, or comma-separated addresses/CIDRs',
    );
  }

  const events: EventsConfig = {
    retentionDays: parseInteger(
      problems,
      'EVENT_RETENTION_DAYS',
      env.EVENT_RETENTION_DAYS,
      30,
      1,
      3650,
    ),
    sweepIntervalSeconds: parseInteger(
      problems,
      'EVENT_RETENTION_SWEEP_SECONDS',
      env.EVENT_RETENTION_SWEEP_SECONDS,
      3600,
      1,
      86400,
    ),
    recording: parseOnOff(problems, 'EVENTS_RECORDING', env.EVENTS_RECORDING, true),
  };
  const concurrency = parseInteger(
    problems,
    'WEBHOOK_CONCURRENCY',
    env.WEBHOOK_CONCURRENCY,
    16,
    1,
    1000,
  );
  const endpointConcurrency = parseInteger(
    problems,
    'WEBHOOK_ENDPOINT_CONCURRENCY',
    env.WEBHOOK_ENDPOINT_CONCURRENCY,
    4,
    1,
    100,
  );
  const webhooks: WebhooksConfig = {
    retryScheduleSeconds: parseRetrySchedule(problems, env.WEBHOOK_RETRY_SCHEDULE),
    allowPrivateNetworks: parseBoolean(
      problems,
      'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
      env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      false,
    ),
    dispatcherEnabled: parseBoolean(problems, 'WEBHOOK_DISPATCHER', env.WEBHOOK_DISPATCHER, true),
    pollIntervalMs: parseInteger(
      problems,
      'WEBHOOK_POLL_INTERVAL_MS',
      env.WEBHOOK_POLL_INTERVAL_MS,
      500,
      10,
      60_000,
    ),
    concurrency,
    endpointConcurrency,
    endpointConcurrencyMax: parseInteger(
      problems,
      'WEBHOOK_ENDPOINT_CONCURRENCY_MAX',
      env.WEBHOOK_ENDPOINT_CONCURRENCY_MAX,
      Math.max(endpointConcurrency, Math.floor(concurrency / 2)),
      1,
      1000,
    ),
    timeoutSeconds: parseInteger(
      problems,
      'WEBHOOK_TIMEOUT_SECONDS',
      env.WEBHOOK_TIMEOUT_SECONDS,
      10,
      1,
      60,
    ),
    leaseSeconds: parseInteger(
      problems,
      'WEBHOOK_LEASE_SECONDS',
      env.WEBHOOK_LEASE_SECONDS,
      60,
      2,
      3600,
    ),
    disableAfterSeconds: parseInteger(
      problems,
      'WEBHOOK_DISABLE_AFTER_SECONDS',
      env.WEBHOOK_DISABLE_AFTER_SECONDS,
      5 * 24 * 3600,
      0,
      365 * 24 * 3600,
    ),
  };
  if (webhooks.leaseSeconds <= webhooks.timeoutSeconds) {
    problems.push('WEBHOOK_LEASE_SECONDS must be greater than WEBHOOK_TIMEOUT_SECONDS');
  }
  const { endpointConcurrencyMax: most } = webhooks;
  if (most < endpointConcurrency || most > concurrency) {
    problems.push(
      `WEBHOOK_ENDPOINT_CONCURRENCY_MAX must be from WEBHOOK_ENDPOINT_CONCURRENCY to WEBHOOK_CONCURRENCY (got ${most})`,
    );
  }

  const verification: VerificationConfig = {
    sandboxDelayMs: parseInteger(
      problems,
      'SANDBOX_VERIFICATION_DELAY_MS',
      env.SANDBOX_VERIFICATION_DELAY_MS,
      1000,
      0,
      86_400_000,
    ),
    pollIntervalMs: parseInteger(
      problems,
      'VERIFICATION_POLL_INTERVAL_MS',
      env.VERIFICATION_POLL_INTERVAL_MS,
      1000,
      10,
      60_000,
    ),
    leaseSeconds: parseInteger(
      problems,
      'VERIFICATION_LEASE_SECONDS',
      env.VERIFICATION_LEASE_SECONDS,
      60,
      1,
      3600,
    ),
    workerEnabled: parseBoolean(problems, 'VERIFICATION_WORKER', env.VERIFICATION_WORKER, true),
  };

  // A generated key file is only written once everything else is known to be valid.
  const encryption = loadEncryptionKey(
    problems,
    env.ENCRYPTION_KEY,
    appEnv,
    problems.length === 0 ? database : undefined,
  );

  if (problems.length > 0) throw new ConfigError(problems);

  return {
    env: appEnv,
    host,
    port,
    logLevel,
    logFormat: logFormat === 'pretty' ? 'pretty' : 'json',
    database: database!,
    encryptionKey: encryption.key,
    encryptionKeyGeneratedAt: encryption.generatedAt,
    bootstrapApiKey,
    bootstrapOrganizationName,
    printDevelopmentKey: appEnv === 'development',
    rateLimitPerSecond,
    redisUrl,
    trustProxy,
    shutdownTimeoutSeconds,
    requestTimeoutSeconds,
    metricsPort,
    events,
    webhooks,
    verification,
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
