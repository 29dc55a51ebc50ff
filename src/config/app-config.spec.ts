import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, parseDatabaseUrl } from './app-config';

const KEY = Buffer.alloc(32, 1).toString('base64');

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('loadConfig: events and webhooks', () => {
  const base = { DATABASE_URL: 'sqlite::memory:', ENCRYPTION_KEY: KEY };

  it('uses the documented defaults (API.md 5.6 and 5.7)', () => {
    const config = loadConfig(base);
    expect(config.events).toEqual({ retentionDays: 30, sweepIntervalSeconds: 3600 });
    expect(config.webhooks).toEqual({
      retryScheduleSeconds: [5, 300, 1800, 7200, 18000, 36000, 36000],
      allowPrivateNetworks: false,
      dispatcherEnabled: true,
      pollIntervalMs: 500,
      concurrency: 16,
      endpointConcurrency: 4,
      timeoutSeconds: 10,
      leaseSeconds: 60,
      disableAfterSeconds: 432000,
    });
  });

  it('reads each variable', () => {
    const config = loadConfig({
      ...base,
      EVENT_RETENTION_DAYS: '7',
      WEBHOOK_RETRY_SCHEDULE: '1, 2,3',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_DISPATCHER: 'off',
    });
    expect(config.events.retentionDays).toBe(7);
    expect(config.webhooks).toMatchObject({
      retryScheduleSeconds: [1, 2, 3],
      allowPrivateNetworks: true,
      dispatcherEnabled: false,
    });
  });

  it('names every bad one', () => {
    const problems = problemsOf({
      ...base,
      EVENT_RETENTION_DAYS: '0',
      WEBHOOK_RETRY_SCHEDULE: '5,,soon',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'maybe',
      WEBHOOK_CONCURRENCY: '0',
      WEBHOOK_TIMEOUT_SECONDS: '30',
      WEBHOOK_LEASE_SECONDS: '20',
    });
    expect(problems.join('\n')).toEqual(
      expect.stringContaining('EVENT_RETENTION_DAYS must be a whole number from 1 to 3650'),
    );
    for (const name of [
      'WEBHOOK_RETRY_SCHEDULE',
      'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
      'WEBHOOK_CONCURRENCY',
      'WEBHOOK_LEASE_SECONDS must be greater than WEBHOOK_TIMEOUT_SECONDS',
    ]) {
      expect(problems.some((p) => p.startsWith(name))).toBe(true);
    }
  });
});

describe('loadConfig: verification', () => {
  const base = { DATABASE_URL: 'sqlite::memory:', ENCRYPTION_KEY: KEY };

  it('uses the documented defaults (docs/verification.md)', () => {
    expect(loadConfig(base).verification).toEqual({
      sandboxDelayMs: 1000,
      pollIntervalMs: 1000,
      leaseSeconds: 60,
      workerEnabled: true,
    });
  });

  it('reads each variable', () => {
    const config = loadConfig({
      ...base,
      SANDBOX_VERIFICATION_DELAY_MS: '0',
      VERIFICATION_POLL_INTERVAL_MS: '25',
      VERIFICATION_LEASE_SECONDS: '2',
      VERIFICATION_WORKER: 'off',
    });
    expect(config.verification).toEqual({
      sandboxDelayMs: 0,
      pollIntervalMs: 25,
      leaseSeconds: 2,
      workerEnabled: false,
    });
  });

  it('names every bad one', () => {
    const problems = problemsOf({
      ...base,
      SANDBOX_VERIFICATION_DELAY_MS: 'soon',
      VERIFICATION_POLL_INTERVAL_MS: '1',
      VERIFICATION_LEASE_SECONDS: '0',
      VERIFICATION_WORKER: 'sometimes',
    });
    for (const name of [
      'SANDBOX_VERIFICATION_DELAY_MS must be a whole number from 0 to 86400000',
      'VERIFICATION_POLL_INTERVAL_MS',
      'VERIFICATION_LEASE_SECONDS',
      'VERIFICATION_WORKER',
    ]) {
      expect(problems.some((p) => p.startsWith(name))).toBe(true);
    }
  });
});

describe('loadConfig', () => {
  it('uses the documented defaults', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const config = loadConfig({ DATABASE_URL: `sqlite:${dir}/db.sqlite`, ENCRYPTION_KEY: KEY });
    expect(config).toMatchObject({
      env: 'development',
      port: 3000,
      rateLimitPerSecond: 100,
      bootstrapOrganizationName: 'Default',
      printDevelopmentKey: true,
      requestTimeoutSeconds: 30,
      database: { kind: 'sqlite', sqlitePath: `${dir}/db.sqlite` },
    });
    expect(config.encryptionKey).toHaveLength(32);
  });

  it('names every bad variable at once', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      RATE_LIMIT_PER_SECOND: '0',
      DATABASE_URL: 'mysql://x',
      LOG_LEVEL: 'loud',
      NODE_ENV: 'staging',
      BOOTSTRAP_API_KEY: 'abc',
      REDIS_URL: 'localhost:6379',
      ENCRYPTION_KEY: 'c2hvcnQ=',
      TRUST_PROXY: 'everyone',
    });
    for (const name of [
      'PORT',
      'RATE_LIMIT_PER_SECOND',
      'DATABASE_URL',
      'LOG_LEVEL',
      'NODE_ENV',
      'BOOTSTRAP_API_KEY',
      'REDIS_URL',
      'ENCRYPTION_KEY',
      'TRUST_PROXY',
    ]) {
      expect(problems.some((p) => p.startsWith(name))).toBe(true);
    }
  });

  it('refuses a blank BOOTSTRAP_ORGANIZATION_NAME, invisible characters included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const env = { DATABASE_URL: `sqlite:${dir}/db.sqlite`, ENCRYPTION_KEY: KEY };
    for (const name of [' ', '\u200b']) {
      expect(problemsOf({ ...env, BOOTSTRAP_ORGANIZATION_NAME: name })).toEqual([
        'BOOTSTRAP_ORGANIZATION_NAME must be 1-200 characters and not blank',
      ]);
    }
    expect(problemsOf({ ...env, BOOTSTRAP_ORGANIZATION_NAME: 'Acme\u200b' })).toEqual([]);
  });

  it('reads METRICS_PORT: off when unset, a port, never the API port', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const env = { DATABASE_URL: `sqlite:${dir}/db.sqlite`, ENCRYPTION_KEY: KEY };
    expect(loadConfig(env).metricsPort).toBeUndefined();
    expect(loadConfig({ ...env, METRICS_PORT: '' }).metricsPort).toBeUndefined();
    expect(loadConfig({ ...env, METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(loadConfig({ ...env, METRICS_PORT: '0' }).metricsPort).toBe(0);
    expect(problemsOf({ ...env, METRICS_PORT: 'nine' })).toEqual([
      'METRICS_PORT must be a whole number from 0 to 65535 (got "nine")',
    ]);
    expect(problemsOf({ ...env, PORT: '8080', METRICS_PORT: '8080' })).toEqual([
      "METRICS_PORT must differ from PORT (both 8080): metrics are never served on the API's port",
    ]);
  });

  it('reads REQUEST_TIMEOUT_SECONDS as 1-600 seconds', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const env = { DATABASE_URL: `sqlite:${dir}/db.sqlite`, ENCRYPTION_KEY: KEY };
    expect(loadConfig({ ...env, REQUEST_TIMEOUT_SECONDS: '2' }).requestTimeoutSeconds).toBe(2);
    for (const bad of ['0', '601', '1.5', 'soon']) {
      expect(problemsOf({ ...env, REQUEST_TIMEOUT_SECONDS: bad })).toEqual([
        `REQUEST_TIMEOUT_SECONDS must be a whole number from 1 to 600 (got "${bad}")`,
      ]);
    }
  });

  it('reads the PostgreSQL pool sizes: 10 for requests, 2 for the webhook dispatcher', () => {
    const env = { DATABASE_URL: 'postgres://u@db.example/billing', ENCRYPTION_KEY: KEY };
    expect(loadConfig(env).database).toMatchObject({ poolSize: 10, dispatcherPoolSize: 2 });
    expect(
      loadConfig({ ...env, DATABASE_POOL_SIZE: '4', DATABASE_DISPATCHER_POOL_SIZE: '1' }).database,
    ).toMatchObject({ poolSize: 4, dispatcherPoolSize: 1 });
    // Before they were validated, DATABASE_POOL_SIZE=ten gave pg a pool of NaN connections.
    expect(
      problemsOf({ ...env, DATABASE_POOL_SIZE: 'ten', DATABASE_DISPATCHER_POOL_SIZE: '0' }),
    ).toEqual([
      'DATABASE_POOL_SIZE must be a whole number from 1 to 1000 (got "ten")',
      'DATABASE_DISPATCHER_POOL_SIZE must be a whole number from 1 to 100 (got "0")',
    ]);
  });

  it('requires ENCRYPTION_KEY in production', () => {
    expect(problemsOf({ NODE_ENV: 'production', DATABASE_URL: 'sqlite::memory:' })).toEqual([
      'ENCRYPTION_KEY is required when NODE_ENV=production',
    ]);
  });

  it('generates a key once into the data folder with mode 0600 and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const first = loadConfig({ DATABASE_URL: `sqlite:${dir}/db.sqlite` });
    expect(first.encryptionKeyGeneratedAt).toBe(join(dir, 'encryption.key'));
    expect(statSync(join(dir, 'encryption.key')).mode & 0o777).toBe(0o600);
    const second = loadConfig({ DATABASE_URL: `sqlite:${dir}/db.sqlite` });
    expect(second.encryptionKeyGeneratedAt).toBeUndefined();
    expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true);
    expect(Buffer.from(readFileSync(join(dir, 'encryption.key'), 'utf8').trim(), 'base64')).toEqual(
      first.encryptionKey,
    );
  });

  it('accepts a valid bootstrap key and turns off the development key in tests and production', () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: 'sqlite::memory:',
      ENCRYPTION_KEY: KEY,
      BOOTSTRAP_API_KEY: 'sk_test_' + 'a'.repeat(32),
    });
    expect(config.bootstrapApiKey).toBe('sk_test_' + 'a'.repeat(32));
    expect(config.printDevelopmentKey).toBe(false);
  });
});

describe('TRUST_PROXY', () => {
  it.each([
    ['', false],
    ['false', false],
    ['true', true],
    ['2', 2],
    ['10.0.0.0/8, 127.0.0.1', '10.0.0.0/8, 127.0.0.1'],
  ])('reads %p', (raw, expected) => {
    const config = loadConfig({
      DATABASE_URL: 'sqlite::memory:',
      ENCRYPTION_KEY: KEY,
      TRUST_PROXY: raw,
    });
    expect(config.trustProxy).toEqual(expected);
  });
});

describe('parseDatabaseUrl', () => {
  it.each([
    ['sqlite:data/billing.sqlite', { kind: 'sqlite', sqlitePath: 'data/billing.sqlite' }],
    ['sqlite::memory:', { kind: 'sqlite', sqlitePath: ':memory:' }],
    ['postgres://u:p@localhost:5432/db', { kind: 'postgres' }],
    ['postgresql://localhost/db', { kind: 'postgres' }],
  ])('reads %s', (url, expected) => {
    expect(parseDatabaseUrl(url)).toMatchObject(expected);
  });

  it.each(['mysql://localhost/db', 'sqlite:', 'postgres://', 'data.sqlite'])(
    'rejects %s',
    (url) => {
      expect(typeof parseDatabaseUrl(url)).toBe('string');
    },
  );
});
