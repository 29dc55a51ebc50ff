/**
 * The configuration: every environment variable in one table (VARIABLES below), each declared
 * once with its name, type, default and check, read once at start-up by `loadConfig`, which
 * names every bad variable at once (ConfigError). The rest of the code reads the typed
 * `AppConfig`, whose shape the table gives.
 *
 * To add a variable: one line in VARIABLES, in the section where the code will read it, e.g.
 *   invoiceGraceDays: integer('INVOICE_GRACE_DAYS', 3, 0, 365),
 * (the `integer`, `flag`, `choice`, `text` and `optional` helpers of variables.ts; a `Variable`
 * for a type of its own), with a doc comment that names the variable, its default and what it does, and a line
 * in docs/operations.md. A rule that ties two variables together goes in RULES.
 * An empty value counts as unset, everywhere.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { ensurePrivateDirectory } from '../common/private-files';
import { isBlank } from '../common/text';
import {
  Problem,
  Values,
  choice,
  flag,
  integer,
  optional,
  readTable,
  text,
  Variable,
} from './variables';

export type DatabaseKind = 'sqlite' | 'postgres';

/** Where the database is, as DATABASE_URL says. */
export interface DatabaseLocation {
  kind: DatabaseKind;
  /** The URL as configured (never logged: it may hold a password). */
  url: string;
  /** SQLite: a file path or ':memory:'. */
  sqlitePath?: string;
}

export interface DatabaseConfig extends DatabaseLocation {
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

const API_KEY_PATTERN = /^sk_(live|test)_[0-9A-Za-z]{32}$/;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const ENVIRONMENTS = ['development', 'production', 'test'] as const;
const DEFAULT_DATABASE_URL = 'sqlite:data/billing.sqlite';
/** PostgreSQL connections per instance: for requests and other work, and for the dispatcher. */
export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_DISPATCHER_POOL_SIZE = 2;
/** docs/api.md §5.7: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

export function parseDatabaseUrl(url: string): DatabaseLocation | string {
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

function parseRetrySchedule(raw: string): number[] | Problem {
  const parts = raw.split(',').map((p) => p.trim());
  if (raw.trim() === '') return DEFAULT_WEBHOOK_RETRY_SCHEDULE;
  if (parts.length > 20 || !parts.every((p) => /^\d{1,7}$/.test(p))) {
    return new Problem(
      'WEBHOOK_RETRY_SCHEDULE must be 1-20 comma-separated whole numbers of seconds (0-9999999), as in 5,300,1800',
    );
  }
  return parts.map(Number);
}

function parseTrustProxy(value: string): boolean | number | string | Problem {
  const raw = value.trim();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  if (/^[0-9a-fA-F.:/]+(\s*,\s*[0-9a-fA-F.:/]+)*$/.test(raw)) return raw;
  return new Problem(
    'TRUST_PROXY must be true, false, a number of hops, or comma-separated addresses/CIDRs',
  );
}

/** ENCRYPTION_KEY as set: 32 bytes in base64. Unset, see `encryptionKey`. */
function parseEncryptionKey(raw: string): Buffer | Problem {
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64') : Buffer.alloc(0);
  return key.length === 32
    ? key
    : new Problem('ENCRYPTION_KEY must be 32 bytes encoded in base64 (44 characters)');
}

/** Every variable, in the sections of AppConfig that read them. */
const VARIABLES = {
  env: choice('NODE_ENV', ENVIRONMENTS, 'development', 'must be development, production or test'),
  host: text('HOST', '0.0.0.0'),
  port: integer('PORT', 3000, 0, 65535),
  logLevel: choice<string>('LOG_LEVEL', LOG_LEVELS, 'info'),
  /** LOG_FORMAT: `json` (default: one JSON object a line) or `pretty` (readable, for a terminal). */
  logFormat: choice('LOG_FORMAT', ['json', 'pretty'] as const, 'json', 'must be json or pretty'),
  /** DATABASE_URL: sqlite:<path>, sqlite::memory: or postgres://… (default sqlite:data/billing.sqlite). */
  location: new Variable(
    'DATABASE_URL',
    parseDatabaseUrl(DEFAULT_DATABASE_URL) as DatabaseLocation,
    (raw) => {
      const parsed = parseDatabaseUrl(raw);
      return typeof parsed === 'string' ? new Problem(parsed) : parsed;
    },
  ),
  poolSize: integer('DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 1000),
  dispatcherPoolSize: integer(
    'DATABASE_DISPATCHER_POOL_SIZE',
    DEFAULT_DISPATCHER_POOL_SIZE,
    1,
    100,
  ),
  /** ENCRYPTION_KEY: 32 raw bytes in base64, the AES-256-GCM key for bank account numbers. */
  encryptionKey: optional('ENCRYPTION_KEY', parseEncryptionKey),
  bootstrapApiKey: optional('BOOTSTRAP_API_KEY', (raw) =>
    API_KEY_PATTERN.test(raw)
      ? raw
      : new Problem(
          'BOOTSTRAP_API_KEY must look like sk_live_ or sk_test_ and 32 letters or digits',
        ),
  ),
  bootstrapOrganizationName: text('BOOTSTRAP_ORGANIZATION_NAME', 'Default', (raw) =>
    isBlank(raw) || [...raw].length > 200
      ? 'BOOTSTRAP_ORGANIZATION_NAME must be 1-200 characters and not blank'
      : undefined,
  ),
  rateLimitPerSecond: integer('RATE_LIMIT_PER_SECOND', 100, 1, 1_000_000),
  redisUrl: optional('REDIS_URL', (raw) =>
    /^rediss?:\/\/\S+$/.test(raw)
      ? raw
      : new Problem('REDIS_URL must be a redis:// or rediss:// URL'),
  ),
  /** TRUST_PROXY, Fastify's trustProxy: which proxies' X-Forwarded-For to believe for the client address. */
  trustProxy: new Variable<boolean | number | string>('TRUST_PROXY', false, parseTrustProxy),
  /** SHUTDOWN_TIMEOUT_SECONDS: seconds to wait for requests in flight on SIGTERM. */
  shutdownTimeoutSeconds: integer('SHUTDOWN_TIMEOUT_SECONDS', 10, 0, 600),
  /** REQUEST_TIMEOUT_SECONDS: a request's headers and body have this long to arrive, or 408. */
  requestTimeoutSeconds: integer('REQUEST_TIMEOUT_SECONDS', 30, 1, 600),
  /**
   * METRICS_PORT: where Prometheus scrapes /metrics, on a server of its own (never the API's
   * port). Unset: no metrics server. 0 picks a free port (the tests use it).
   */
  metricsPort: optional('METRICS_PORT', integer('METRICS_PORT', 0, 0, 65535).parse),
  /** Events (docs/api.md §5.6). */
  events: {
    /** EVENT_RETENTION_DAYS (default 30): events older than this are deleted by the sweep. */
    retentionDays: integer('EVENT_RETENTION_DAYS', 30, 1, 3650),
    /** EVENT_RETENTION_SWEEP_SECONDS (default 3600): how often the retention sweep runs. */
    sweepIntervalSeconds: integer('EVENT_RETENTION_SWEEP_SECONDS', 3600, 1, 86400),
  },
  /** Webhook delivery (docs/api.md §5.7). */
  webhooks: {
    /**
     * WEBHOOK_RETRY_SCHEDULE: the delays in seconds before each retry after a failed attempt
     * (default 5,300,1800,7200,18000,36000,36000: 8 attempts over 27.6 hours); then given up.
     */
    retryScheduleSeconds: new Variable(
      'WEBHOOK_RETRY_SCHEDULE',
      DEFAULT_WEBHOOK_RETRY_SCHEDULE,
      parseRetrySchedule,
    ),
    /** WEBHOOK_ALLOW_PRIVATE_NETWORKS=true: http:// and internal addresses allowed (development, tests). */
    allowPrivateNetworks: flag('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    /** WEBHOOK_DISPATCHER=off: this instance records events but delivers nothing (default on). */
    dispatcherEnabled: flag('WEBHOOK_DISPATCHER', true),
    /** WEBHOOK_POLL_INTERVAL_MS (default 500): how often the dispatcher looks for due attempts. */
    pollIntervalMs: integer('WEBHOOK_POLL_INTERVAL_MS', 500, 10, 60_000),
    /** WEBHOOK_CONCURRENCY (default 16): attempts in flight in this instance, all endpoints together. */
    concurrency: integer('WEBHOOK_CONCURRENCY', 16, 1, 1000),
    /** WEBHOOK_ENDPOINT_CONCURRENCY (default 4): attempts in flight in this instance to one endpoint. */
    endpointConcurrency: integer('WEBHOOK_ENDPOINT_CONCURRENCY', 4, 1, 100),
    /** WEBHOOK_TIMEOUT_SECONDS (default 10): an answer later than this is a failure. */
    timeoutSeconds: integer('WEBHOOK_TIMEOUT_SECONDS', 10, 1, 60),
    /**
     * WEBHOOK_LEASE_SECONDS (default 60): how long a claimed attempt is reserved for the instance
     * that claimed it; an attempt whose process died is made again after this. Above the timeout.
     */
    leaseSeconds: integer('WEBHOOK_LEASE_SECONDS', 60, 2, 3600),
    /** WEBHOOK_DISABLE_AFTER_SECONDS (default 432000, 5 days) of failing every attempt: disabled. */
    disableAfterSeconds: integer(
      'WEBHOOK_DISABLE_AFTER_SECONDS',
      5 * 24 * 3600,
      0,
      365 * 24 * 3600,
    ),
  },
  /** Bank-account verification (docs/api.md §5.5, docs/verification.md). */
  verification: {
    /** SANDBOX_VERIFICATION_DELAY_MS (default 1000): when the test-mode sandbox decides an account. */
    sandboxDelayMs: integer('SANDBOX_VERIFICATION_DELAY_MS', 1000, 0, 86_400_000),
    /** VERIFICATION_POLL_INTERVAL_MS (default 1000): how often the worker looks for due verifications. */
    pollIntervalMs: integer('VERIFICATION_POLL_INTERVAL_MS', 1000, 10, 60_000),
    /** VERIFICATION_LEASE_SECONDS (default 60): a claimed verification's lease. */
    leaseSeconds: integer('VERIFICATION_LEASE_SECONDS', 60, 1, 3600),
    /** VERIFICATION_WORKER=off: this instance decides no verification itself (default on). */
    workerEnabled: flag('VERIFICATION_WORKER', true),
  },
  /**
   * INVOICE_GRACE_SECONDS (default 3600): how long after a period's end its draft invoice waits for
   * late usage before it is issued (docs/api.md §5.12).
   */
  invoiceGraceSeconds: integer('INVOICE_GRACE_SECONDS', 3600, 0, 31_536_000),
};

type Read = Values<typeof VARIABLES>;

/** Rules that tie variables together: each gives its problem, or undefined. */
const RULES: ((c: Read) => string | undefined)[] = [
  (c) =>
    c.metricsPort !== undefined && c.metricsPort !== 0 && c.metricsPort === c.port
      ? `METRICS_PORT must differ from PORT (both ${c.port}): metrics are never served on the API's port`
      : undefined,
  (c) =>
    c.webhooks.leaseSeconds <= c.webhooks.timeoutSeconds
      ? 'WEBHOOK_LEASE_SECONDS must be greater than WEBHOOK_TIMEOUT_SECONDS'
      : undefined,
  (c) =>
    c.env === 'production' && !c.encryptionKey
      ? 'ENCRYPTION_KEY is required when NODE_ENV=production'
      : undefined,
];

export type AppConfig = Omit<
  Read,
  'location' | 'poolSize' | 'dispatcherPoolSize' | 'encryptionKey'
> & {
  database: DatabaseConfig;
  /** 32 raw bytes: the AES-256-GCM key for bank account numbers. */
  encryptionKey: Buffer;
  /** Set when the key was generated into the data folder on this start. */
  encryptionKeyGeneratedAt?: string;
  /** Outside production and tests: print a development key on the first start of an empty database. */
  printDevelopmentKey: boolean;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** The folder that holds the SQLite file and a generated encryption key. */
export function dataFolder(database: DatabaseLocation): string {
  if (database.kind === 'sqlite' && database.sqlitePath && database.sqlitePath !== ':memory:') {
    return dirname(resolve(database.sqlitePath));
  }
  return resolve('data');
}

/**
 * Outside production, with ENCRYPTION_KEY unset: the key generated once into the data folder and
 * reused on later starts.
 */
function keyFile(
  problems: string[],
  database: DatabaseLocation,
): { key: Buffer; generatedAt?: string } {
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
  const read = readTable(VARIABLES, env, problems) as Read;
  for (const rule of RULES) {
    const problem = rule(read);
    if (problem !== undefined) problems.push(problem);
  }
  const { location, poolSize, dispatcherPoolSize, encryptionKey, ...rest } = read;
  // A generated key file is only written once everything else is known to be valid.
  const key =
    encryptionKey || problems.length > 0
      ? { key: encryptionKey ?? Buffer.alloc(0) }
      : keyFile(problems, location);
  if (problems.length > 0) throw new ConfigError(problems);
  const database: DatabaseConfig =
    location.kind === 'postgres'
      ? { ...location, poolSize, dispatcherPoolSize }
      : { ...location, backgroundCheckpoints: location.sqlitePath !== ':memory:' };
  return {
    ...rest,
    database,
    encryptionKey: key.key,
    encryptionKeyGeneratedAt: key.generatedAt,
    printDevelopmentKey: rest.env === 'development',
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
