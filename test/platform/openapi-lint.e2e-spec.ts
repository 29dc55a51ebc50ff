import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ERROR_STATUS } from '../../src/common/errors';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';

const run = promisify(execFile);
const REDOCLY = resolve(__dirname, '../../node_modules/@redocly/cli/bin/cli.js');
const METHODS = ['get', 'post', 'patch', 'delete'];

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: unknown[] }[];
}

/**
 * Lints the document the app serves with Redocly's recommended rules, by its command line on a
 * file, as a reader's tool would. The command exits non-zero on errors: its report is the answer.
 */
async function redoclyLint(document: unknown): Promise<LintReport> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const result = await run(
      process.execPath,
      [REDOCLY, 'lint', file, '--extends', 'recommended', '--format', 'json'],
      {
        cwd: dir, // no redocly.yaml of the project's is read
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((err: Error & { stdout?: string; stderr?: string }) => {
      if (!err.stdout) throw new Error(`redocly did not run: ${err.stderr ?? err.message}`);
      return { stdout: err.stdout };
    });
    return JSON.parse(result.stdout) as LintReport;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const operations = (doc: any) =>
  Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, operation: item[method] })),
  );

/** Ids and the request id differ from one run to the next: compare bodies without them. */
const normalized = (body: any) =>
  JSON.parse(
    JSON.stringify({ ...body, requestId: undefined }).replace(
      /\b(org|prod|bm|price|plan|eba|we|evt)_[0-9A-Za-z]{16,40}\b/g,
      '$1_…',
    ),
  );

describe(`the OpenAPI document, as a tool reads it (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let doc: any;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant();
    doc = (await t.http().get('/docs-json').expect(200)).body;
  });
  afterAll(() => t.close());

  it('passes Redocly lint with the recommended rules: no error, no warning', async () => {
    const report = await redoclyLint(doc);
    const problems = report.problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${p.message} ${JSON.stringify(p.location)}`,
    );
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('states who may call what: bearer keys for /v0, no security on the public routes', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.bearer.bearerFormat).not.toMatch(/JWT/);
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    for (const { path, operation } of operations(doc)) {
      expect({ path, security: operation.security }).toEqual({
        path,
        security: path.startsWith('/v0/') ? [{ bearer: [] }] : [],
      });
    }
  });

  it('documents every error status with example bodies of its own category', () => {
    for (const { path, method, operation } of operations(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      const statuses = Object.keys(operation.responses);
      expect({ where, has: statuses.filter((s) => ['400', '500', '503'].includes(s)) }).toEqual({
        where,
        has: ['400', '500', '503'],
      });
      if (method !== 'get') {
        expect({ where, statuses }).toEqual({
          where,
          statuses: expect.arrayContaining(['413', '415']),
        });
      }
      if (path.startsWith('/v0/')) {
        expect({ where, statuses }).toEqual({
          where,
          statuses: expect.arrayContaining(['401', '429']),
        });
      }
      if (path.includes('{')) {
        expect({ where, statuses }).toEqual({ where, statuses: expect.arrayContaining(['404']) });
      }
      // 304 answers an If-None-Match with the ETag, which only a single resource carries.
      if (statuses.includes('304')) {
        const schema = operation.responses['200'].content['application/json'].schema.$ref;
        const properties = doc.components.schemas[schema.split('/').pop()].properties;
        expect({ where, properties: Object.keys(properties) }).toEqual({
          where,
          properties: expect.arrayContaining(['id', 'object']),
        });
      }
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        const examples = operation.responses[status].content?.['application/json']?.examples ?? {};
        const categories = Object.values<any>(examples).map((e) => e.value.error);
        const category = Object.entries(ERROR_STATUS).find(([, s]) => String(s) === status)?.[0];
        expect({ where, status, categories: [...new Set(categories)] }).toEqual({
          where,
          status,
          categories: [category],
        });
      }
    }
  });

  it('marks no query parameter required (every filter is optional, limit and offset have defaults), and gives none an example', () => {
    // The meter is no list: its range and customer are what it reads (docs/api.md §5.11).
    const requiredOf: Record<string, string[]> = {
      'get /v0/billableMetrics/{id}/meter': ['customerId', 'from', 'to'],
    };
    for (const { path, method, operation } of operations(doc)) {
      const query = (operation.parameters ?? []).filter((p: any) => p.in === 'query');
      const required = query.filter((p: any) => p.required).map((p: any) => p.name);
      // Swagger UI sends a query parameter's example with "Try it out": a filter would apply.
      const withExample = query
        .filter((p: any) => p.example !== undefined || p.schema?.example !== undefined)
        .map((p: any) => p.name);
      expect({ where: `${method} ${path}`, required, withExample }).toEqual({
        where: `${method} ${path}`,
        required: requiredOf[`${method} ${path}`] ?? [],
        withExample: [],
      });
    }
  });

  it('gives create examples that name no merchant, so each runs as it is', () => {
    for (const { path, operation } of operations(doc).filter((o) => o.method === 'post')) {
      const examples = operation.requestBody?.content?.['application/json']?.examples ?? {};
      for (const [name, example] of Object.entries<any>(examples)) {
        expect({ path, name, keys: Object.keys(example.value) }).toEqual({
          path,
          name,
          keys: expect.not.arrayContaining(['merchantId', 'organizationId']),
        });
      }
    }
  });

  /** The documented examples of one operation's status, normalized. */
  const documented = (path: string, method: string, status: number) =>
    Object.values<any>(
      doc.paths[path][method].responses[String(status)]?.content?.['application/json']?.examples ??
        {},
    ).map((e) => normalized(e.value));

  /** Sends a request and expects its answer among the examples documented for its status. */
  async function expectDocumented(
    path: string,
    method: string,
    send: () => PromiseLike<{ status: number; body: any }>,
    status: number,
  ) {
    const res = await send();
    expect(res.status).toBe(status);
    expect(documented(path, method, status)).toContainEqual(normalized(res.body));
  }

  it('documents the very bodies the API answers', async () => {
    const http = () => t.http();
    const json = { ...tenant.auth, 'Content-Type': 'application/json' };
    const product = (await http().post('/v0/products').set(json).send({ name: 'A' }).expect(201))
      .body;
    const one = `/v0/products/${product.id}`;

    await expectDocumented('/v0/products', 'get', () => http().get('/v0/products'), 401);
    await expectDocumented(
      '/v0/products',
      'get',
      () => http().get('/v0/products').set('Authorization', 'Bearer sk_test_0000'),
      401,
    );
    await expectDocumented(
      '/v0/products',
      'get',
      () => http().get('/v0/products?limit=1000').set(tenant.auth),
      400,
    );
    await expectDocumented(
      '/v0/products/{id}',
      'get',
      () => http().get('/v0/products/prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC').set(tenant.auth),
      404,
    );
    await expectDocumented(
      '/v0/products/{id}',
      'get',
      () => http().get(`${one}?expand=x`).set(tenant.auth),
      400,
    );
    await expectDocumented(
      '/v0/products',
      'post',
      () => http().post('/v0/products').set(json).send({}),
      400,
    );
    await expectDocumented(
      '/v0/products',
      'post',
      () => http().post('/v0/products').set(json).send({ name: 'A', colour: 'red' }),
      400,
    );
    await expectDocumented(
      '/v0/products',
      'post',
      () => http().post('/v0/products').set(json).send('{"name":'),
      400,
    );
    await expectDocumented(
      '/v0/products',
      'post',
      () => http().post('/v0/products').set(json).set('Idempotency-Key', '').send({ name: 'A' }),
      400,
    );
    await expectDocumented(
      '/v0/products',
      'post',
      () =>
        http()
          .post('/v0/products')
          .set(json)
          .send({ name: 'A', merchantId: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0OTH' }),
      403,
    );
    await expectDocumented(
      '/v0/products',
      'post',
      () =>
        http()
          .post('/v0/products')
          .set({ ...tenant.auth, 'Content-Type': 'text/plain' })
          .send('hello'),
      415,
    );
    await expectDocumented(
      '/v0/products',
      'post',
      () =>
        http()
          .post('/v0/products')
          .set(json)
          .send({ name: 'x'.repeat(110 * 1024) }),
      413,
    );
    await expectDocumented(
      '/v0/products/{id}',
      'patch',
      () => http().patch(one).set(json).set('If-Match', '"stale"').send({ name: 'B' }),
      412,
    );
    await http().post('/v0/products').set(json).set('Idempotency-Key', 'k-1').send({ name: 'A' });
    await expectDocumented(
      '/v0/products',
      'post',
      () => http().post('/v0/products').set(json).set('Idempotency-Key', 'k-1').send({ name: 'B' }),
      422,
    );
    await expectDocumented('/healthz', 'get', () => http().get('/healthz?expand=1'), 400);
  });

  it('documents the plan and billable-metric answers, the tax rate sent as a number included', async () => {
    const json = { ...tenant.auth, 'Content-Type': 'application/json' };
    const product = (await t.http().post('/v0/products').set(json).send({ name: 'A' }).expect(201))
      .body;
    const plan = (body: object) => () =>
      t
        .http()
        .post('/v0/plans')
        .set(json)
        .send({ name: 'P', productId: product.id, billingInterval: 'monthly', ...body });
    await expectDocumented('/v0/plans', 'post', plan({ tax: { rate: 8.25 } }), 400);
    await expectDocumented(
      '/v0/plans',
      'post',
      plan({ productId: 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0PRD' }),
      400,
    );
    await expectDocumented(
      '/v0/plans',
      'post',
      plan({ prices: ['price_01JD3Y2Q6J8C4N1V9W5X7Z0PRC'] }),
      400,
    );
    await expectDocumented(
      '/v0/billableMetrics',
      'post',
      () =>
        t.http().post('/v0/billableMetrics').set(json).send({
          productId: product.id,
          name: 'Calls',
          unit: 'call',
          aggregation: 'COUNT',
          valueProperty: '$.n',
        }),
      400,
    );
  });

  it('documents PATCH bodies as optional, and a PATCH without one changes nothing', async () => {
    for (const { path, operation } of operations(doc).filter((o) => o.method === 'patch')) {
      expect({ path, required: operation.requestBody.required }).toEqual({
        path,
        required: false,
      });
    }
    const product = (
      await t.http().post('/v0/products').set(tenant.auth).send({ name: 'A' }).expect(201)
    ).body;
    const res = await t.http().patch(`/v0/products/${product.id}`).set(tenant.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(product);
  });
});
