import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { ensurePrivateDirectory } from '../common/private-files';

export type DatabaseKind = 'sqlite' | 'postgres';

export interface DatabaseConfig {
  kind: DatabaseKind;
  /** The URL as configured (never logged: it may hold a password). */
  url: string;
  /** SQLite: a file path or ':memory:'. */
  sqlitePath?: string;
}

export interface AppConfig {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  logLevel: string;
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

/**
 * The dialect DATABASE_URL names, parsed exactly as loadConfig parses it (an invalid URL reads as
 * the default, SQLite; loadConfig then refuses it). For what is fixed when modules load, before
 * the configuration object exists: the entities' column types (database/column-types.ts).
 */
export function configuredDialect(env: NodeJS.ProcessEnv = process.env): DatabaseKind {
  const parsed = parseDatabaseUrl(env.DATABASE_URL || DEFAULT_DATABASE_URL);
  return typeof parsed === 'string' ? 'sqlite' : parsed.kind;
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

  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }

  const parsedDb = parseDatabaseUrl(env.DATABASE_URL || DEFAULT_DATABASE_URL);
  const database = typeof parsedDb === 'string' ? undefined : parsedDb;
  if (typeof parsedDb === 'string') problems.push(parsedDb);

  const bootstrapApiKey = env.BOOTSTRAP_API_KEY || undefined;
  if (bootstrapApiKey !== undefined && !API_KEY_PATTERN.test(bootstrapApiKey)) {
    problems.push('BOOTSTRAP_API_KEY must look like sk_live_ or sk_test_ and 32 letters or digits');
  }
  const bootstrapOrganizationName = env.BOOTSTRAP_ORGANIZATION_NAME ?? 'Default';
  if (bootstrapOrganizationName.trim() === '' || [...bootstrapOrganizationName].length > 200) {
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
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
