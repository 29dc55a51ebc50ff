import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';

describe(`the guarantees in the OpenAPI document (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let doc: any;

  beforeAll(async () => {
    t = await startTestApp();
    doc = (await t.http().get('/docs-json').expect(200)).body;
  });
  afterAll(() => t.close());

  const headerParams = (operation: any) =>
    (operation.parameters ?? [])
      .map((p: any) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p))
      .filter((p: any) => p.in === 'header')
      .map((p: any) => p.name);

  it('documents Idempotency-Key, 409 and 422 on every write, and If-Match with 412 on PATCH and DELETE', () => {
    const post = doc.paths['/v0/plans'].post;
    expect(headerParams(post)).toContain('Idempotency-Key');
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['201', '409', '422']));
    expect(post.responses['201'].headers).toHaveProperty('Idempotent-Replayed');
    for (const method of ['patch', 'delete']) {
      const operation = doc.paths['/v0/plans/{id}'][method];
      expect(headerParams(operation)).toEqual(
        expect.arrayContaining(['Idempotency-Key', 'If-Match']),
      );
      expect(operation.responses).toHaveProperty('412');
    }
    expect(headerParams(doc.paths['/v0/plans'].get)).not.toContain('Idempotency-Key');
  });

  it('documents If-None-Match and 304 on GET of one resource, and ETag on single-resource responses only', () => {
    const get = doc.paths['/v0/plans/{id}'].get;
    expect(headerParams(get)).toContain('If-None-Match');
    expect(get.responses).toHaveProperty('304');
    // A 304 sends the ETag again.
    expect(get.responses['304'].headers.ETag).toEqual({ $ref: '#/components/headers/ETag' });
    expect(get.responses['200'].headers).toHaveProperty('ETag');
    expect(doc.paths['/v0/plans'].post.responses['201'].headers).toHaveProperty('ETag');
    expect(doc.paths['/v0/plans'].get.responses['200']?.headers?.ETag).toBeUndefined();
  });

  it('documents the rate-limit headers on every /v0 response and Retry-After on 429', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (!path.startsWith('/v0/')) continue;
      for (const operation of Object.values<any>(item)) {
        for (const response of Object.values<any>(operation.responses)) {
          expect(Object.keys(response.headers ?? {})).toEqual(
            expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
          );
        }
      }
    }
    const limited = doc.paths['/v0/plans'].post.responses['429'];
    expect(limited.headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(doc.components.headers).toHaveProperty('Retry-After');
    // IDEMPOTENCY_KEY_IN_USE says when to retry too.
    expect(doc.paths['/v0/plans'].post.responses['409'].headers['Retry-After']).toEqual({
      $ref: '#/components/headers/Retry-After',
    });
  });

  it('documents 408 and 431, which the HTTP layer answers on any route', () => {
    for (const item of Object.values<any>(doc.paths)) {
      for (const operation of Object.values<any>(item)) {
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['408', '431']));
      }
    }
  });

  it('documents timestamps as date-time in every schema', () => {
    const untyped: string[] = [];
    for (const [name, schema] of Object.entries<any>(doc.components.schemas)) {
      for (const [field, property] of Object.entries<any>(schema.properties ?? {})) {
        if (/[a-z]At$/.test(field) && property.format !== 'date-time') {
          untyped.push(`${name}.${field}`);
        }
      }
    }
    expect(untyped).toEqual([]);
    expect(doc.components.schemas.PlanResponse.properties.createdAt.format).toBe('date-time');
  });

  it('documents the bodies of the public routes', () => {
    const body = (path: string) => {
      const schema = doc.paths[path].get.responses['200'].content['application/json'].schema;
      return doc.components.schemas[schema.$ref.split('/').pop()];
    };
    expect(Object.keys(body('/healthz').properties)).toEqual(['status']);
    expect(Object.keys(body('/readyz').properties)).toEqual(['status', 'database']);
    expect(Object.keys(body('/').properties)).toEqual(['message', 'docs', 'openapi', 'health']);
  });

  it('declares every nullable schema beside its type, so strict clients accept null (event.request)', () => {
    const untyped: string[] = [];
    const visit = (node: any, at: string) => {
      if (!node || typeof node !== 'object') return;
      // Beside allOf or $ref, null is refused by the schema referenced, whatever `nullable` says.
      if (node.nullable === true && (node.type === undefined || node.allOf || node.$ref)) {
        untyped.push(at);
      }
      for (const [key, value] of Object.entries(node)) visit(value, `${at}/${key}`);
    };
    visit(doc, '#');
    expect(untyped).toEqual([]);
    expect(doc.components.schemas.EventResponse.properties.request).toMatchObject({
      type: 'object',
      nullable: true,
      properties: { id: expect.anything(), idempotencyKey: expect.anything() },
    });
  });

  it('fails a request whose answer the document does not declare (the check every suite runs)', () => {
    const event = {
      id: 'evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC',
      object: 'event',
      type: 'plan.updated',
      livemode: false,
      createdAt: '2026-01-31T12:00:00.000Z',
      data: { object: {}, previousAttributes: null },
      request: null,
      actor: { type: 'system', id: null },
    };
    const problem = (status: number, body: unknown) =>
      t.documentCheck.problem(
        'GET',
        '/v0/events/evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC',
        status,
        'application/json; charset=utf-8',
        JSON.stringify(body),
      );
    expect(problem(200, event)).toBeUndefined();
    expect(problem(200, { ...event, request: 'req_1' })).toMatch(/\/request must be object/);
    expect(problem(200, { ...event, actor: undefined })).toMatch(/actor/);
    expect(problem(418, { error: 'teapot' })).toMatch(/status 418 is not documented/);
    expect(
      t.documentCheck.problem(
        'GET',
        '/v0/nowhere',
        404,
        'application/json',
        '{"error":"not_found"}',
      ),
    ).toMatch(/must have required property/);
  });

  it('declares what the service accepts: an optional empty body on bodiless POSTs, any X-Request-Id', () => {
    const rotate = doc.paths['/v0/webhookEndpoints/{id}/rotateSecret'].post;
    expect(rotate.requestBody).toMatchObject({
      required: false,
      content: { 'application/json': { schema: { type: 'object', additionalProperties: false } } },
    });
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (item.post) expect({ path, body: !!item.post.requestBody }).toEqual({ path, body: true });
      for (const operation of Object.values<any>(item)) {
        const requestId = (operation.parameters ?? []).find((p: any) => p.name === 'X-Request-Id');
        if (requestId) expect(requestId.schema).toEqual({ type: 'string' });
      }
    }
  });

  it('says in its summary which id to replace in a request example that names one, and points webhooks at the quickstart receiver', () => {
    const idShaped = /"(org|prod|bm|price|plan|eba|evt|we)_[0-9A-Za-z]{16,40}"/;
    const unsaid: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const examples = operation.requestBody?.content?.['application/json']?.examples ?? {};
        for (const [name, example] of Object.entries<any>(examples)) {
          if (idShaped.test(JSON.stringify(example.value)) && !/replace/i.test(example.summary)) {
            unsaid.push(`${method} ${path} ${name}`);
          }
        }
      }
    }
    expect(unsaid).toEqual([]);
    const webhook = doc.paths['/v0/webhookEndpoints'].post.requestBody.content['application/json'];
    const urls = Object.values<any>(webhook.examples).map((e) => e.value.url);
    expect(urls).toContain('http://127.0.0.1:4242/webhooks/quickstart');
    expect(JSON.stringify(webhook.examples)).not.toContain('example.com');
  });
});
