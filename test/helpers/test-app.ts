import { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { CreateAppOptions, createApp } from '../../src/app.setup';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { Database } from '../../src/database/database';
import { DocumentCheck, assertMatchesDocument } from './openapi-check';
import { TestDatabase, createTestDatabase } from './test-database';

/** A fixed key so tests can compare ciphertexts; never used outside tests. */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

export interface TestTenant {
  organizationId: string;
  apiKey: string;
  apiKeyId: string;
  /** Headers that authenticate as this tenant. */
  auth: { Authorization: string };
}

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  database: TestDatabase;
  dataSource: DataSource;
  db: Database;
  /**
   * A supertest client on the real HTTP server; every JSON response it receives is checked
   * against the served /docs-json (test/helpers/openapi-check.ts).
   */
  http(): TestAgent;
  /** The check of responses against the served OpenAPI document. */
  documentCheck: DocumentCheck;
  /** A new organization with one live key. */
  createTenant(name?: string): Promise<TestTenant>;
  close(): Promise<void>;
}

/**
 * Starts the real application (createApp, as main.ts does) on a database of its own, built by
 * the real migrations.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: CreateAppOptions = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    DATABASE_URL: database.url,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    RATE_LIMIT_PER_SECOND: '100000',
    // Test-mode accounts stay pending for the length of a suite, so that the sandbox never
    // changes an account under a test about something else; the verification suites
    // (test/external-accounts/verification*.e2e-spec.ts) set a short delay.
    SANDBOX_VERIFICATION_DELAY_MS: '3600000',
    ...env,
  });
  let app: NestFastifyApplication;
  try {
    app = await createApp(config, options);
  } catch (err) {
    await database.drop();
    throw err;
  }
  const apiKeys = app.get(ApiKeysService);
  const documentCheck = await loadDocumentCheck(app);
  return {
    app,
    config,
    database,
    dataSource: app.get(DataSource),
    db: app.get(Database),
    documentCheck,
    http: () => checkedHttp(app, documentCheck),
    async createTenant(name = 'Test Org') {
      const org = await apiKeys.createOrganization(name);
      const key = await apiKeys.createApiKey(org.id);
      return {
        organizationId: org.id,
        apiKey: key.apiKey,
        apiKeyId: key.id,
        auth: { Authorization: `Bearer ${key.apiKey}` },
      };
    },
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

/** The served OpenAPI document, ready to check responses against. */
export async function loadDocumentCheck(app: NestFastifyApplication): Promise<DocumentCheck> {
  const served = await app
    .getHttpAdapter()
    .getInstance()
    .inject({ method: 'GET', url: '/docs-json' });
  if (served.statusCode !== 200) throw new Error(`GET /docs-json answered ${served.statusCode}`);
  return new DocumentCheck(JSON.parse(served.body));
}

const HTTP_METHODS: Record<string, string> = {
  get: 'GET',
  post: 'POST',
  put: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  del: 'DELETE',
  head: 'HEAD',
  options: 'OPTIONS',
};

/**
 * A supertest client on `app` whose every request also asserts that its response matches the
 * OpenAPI document: a suite that receives an undocumented status or body fails.
 */
export function checkedHttp(app: NestFastifyApplication, check: DocumentCheck): TestAgent {
  const agent = request(app.getHttpServer());
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      const method = typeof property === 'string' ? HTTP_METHODS[property] : undefined;
      if (!method || typeof value !== 'function') return value;
      return (url: string, ...rest: unknown[]) =>
        (value as (...args: unknown[]) => request.Test)
          .call(target, url, ...rest)
          .expect((res) => assertMatchesDocument(check, method, url, res));
    },
  });
}

/** Asserts the error envelope of docs/api.md §3 and that requestId matches the header. */
export function expectErrorEnvelope(
  res: { status: number; body: any; headers: Record<string, string> },
  status: number,
  error: string,
  code?: string,
): void {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status, error });
  if (code !== undefined) expect(res.body.code).toBe(code);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.requestId).toBe(res.headers['x-request-id']);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const extra = Object.keys(res.body).filter(
    (k) => !['error', 'code', 'message', 'errors', 'requestId'].includes(k),
  );
  expect(extra).toEqual([]);
  expect(JSON.stringify(res.body)).not.toMatch(
    /\bat .+\.(ts|js):\d+|SELECT |INSERT |sk_(live|test)_/,
  );
}

/**
 * Create, retrieve and update calls on one collection as a tenant, for suites that share a
 * started app (`app` is read at call time, after beforeAll has started it).
 */
export function resourceClient(app: () => TestApp, collection: string) {
  const one = (id: string) => `${collection}/${encodeURIComponent(id)}`;
  return {
    create: (tenant: TestTenant, body: unknown) =>
      app()
        .http()
        .post(collection)
        .set(tenant.auth)
        .send(body as object),
    get: (tenant: TestTenant, id: string) => app().http().get(one(id)).set(tenant.auth),
    patch: (tenant: TestTenant, id: string, body: unknown, ifMatch?: string) => {
      const req = app().http().patch(one(id)).set(tenant.auth);
      if (ifMatch !== undefined) void req.set('If-Match', ifMatch);
      return req.send(body as object);
    },
  };
}
