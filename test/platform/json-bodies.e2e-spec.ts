import { TestTenant, expectErrorEnvelope } from '../helpers/test-app';
import { TEST_DIALECT } from '../helpers/test-database';
import { ListeningApp, startListeningApp } from '../helpers/reliability/fixtures';
import { RESOURCES, createResource } from '../helpers/resources';
import { exchange, expectRawEnvelope } from '../helpers/raw-http';

const DELETABLE = RESOURCES.filter((r) => r.deletable);

/**
 * Request bodies the JSON parser and the platform answer for every route: the bodies of routes
 * that take none (every DELETE here; rotateSecret in test/webhooks/endpoints.e2e-spec.ts) and
 * `__proto__` keys (docs/decisions.md §1, docs/errors.md).
 */
describe(`JSON bodies (${TEST_DIALECT})`, () => {
  let l: ListeningApp;
  let port: number;
  let tenant: TestTenant;

  beforeAll(async () => {
    l = await startListeningApp();
    port = Number(new URL(l.client.baseUrl).port);
    tenant = await l.t.createTenant();
  });
  afterAll(() => l.t.close());

  const http = () => l.t.http();

  /** One request written as is on a socket of its own (headers exactly as given). */
  async function raw(method: string, path: string, headers: string[], body = '') {
    const head = [
      `${method} ${path} HTTP/1.1`,
      'Host: localhost',
      `Authorization: ${tenant.auth.Authorization}`,
      ...headers,
      'Connection: close',
    ].join('\r\n');
    const { responses } = await exchange(port, `${head}\r\n\r\n${body}`);
    expect(responses).toHaveLength(1);
    return responses[0];
  }

  /** The resource is still there, not deleted. */
  async function expectNotDeleted(path: string, id: string) {
    const res = await http().get(`${path}/${id}`).set(tenant.auth).expect(200);
    expect(res.body.deletedAt ?? null).toBeNull();
  }

  describe('DELETE with Content-Type: application/json and no body', () => {
    describe.each(DELETABLE.map((r) => [r.name, r] as const))('%s', (name, kind) => {
      it.each([
        ['Content-Length: 0', ['Content-Type: application/json', 'Content-Length: 0'], ''],
        ['no Content-Length', ['Content-Type: application/json'], ''],
        [
          'charset=utf-8 and Content-Length: 0',
          ['Content-Type: application/json; charset=utf-8', 'Content-Length: 0'],
          '',
        ],
        [
          'an empty chunked body',
          ['Content-Type: application/json', 'Transfer-Encoding: chunked'],
          '0\r\n\r\n',
        ],
      ])('deletes it (%s)', async (_how, headers, body) => {
        const created = await createResource(l.t, tenant, name);
        const res = await raw('DELETE', `${kind.path}/${created.id}`, headers, body);
        expect({ status: res.status, body: res.body }).toMatchObject({
          status: name === 'price' ? 204 : 200,
        });
      });
    });

    it('deletes with the header as supertest sends it, and with {} or no body at all', async () => {
      const plans = await Promise.all([1, 2, 3].map(() => createResource(l.t, tenant, 'plan')));
      const del = (id: string) => http().delete(`/v0/plans/${id}`).set(tenant.auth);
      const answers = [
        await del(plans[0].id).set('Content-Type', 'application/json'),
        await del(plans[1].id).send({}),
        await del(plans[2].id),
      ];
      for (const res of answers) {
        expect(res.status).toBe(200);
        expect(res.body.deletedAt).not.toBeNull();
      }
    });
  });

  describe('an empty body with Content-Type: application/json is no body (docs/api.md §6)', () => {
    const empty = ['Content-Type: application/json', 'Content-Length: 0'];

    it('answers a create as it answers one without a body: the required fields, not MALFORMED_JSON', async () => {
      const res = await raw('POST', '/v0/products', empty);
      expectRawEnvelope(res, 400, 'validation_error', 'REQUIRED');
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'name' })]);
    });

    it('changes nothing on a PATCH and answers 200, as {} does', async () => {
      const created = await createResource(l.t, tenant, 'product');
      const res = await raw('PATCH', `/v0/products/${created.id}`, empty);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: created.id, updatedAt: created.updatedAt });
    });

    it('is a 404 on a path no route answers, never a 400 for its body', async () => {
      for (const [headers, body] of [
        [empty, ''],
        [['Content-Type: application/json', 'Content-Length: 1'], '{'],
        [['Content-Type: text/plain', 'Content-Length: 2'], 'hi'],
        [['Content-Type: application/json; charset=latin1', 'Content-Length: 2'], '{}'],
      ] as const) {
        const res = await raw('POST', '/v0/nothing', [...headers], body);
        expectRawEnvelope(res, 404, 'not_found', 'ROUTE_NOT_FOUND');
      }
    });
  });

  describe('DELETE with a body that says something', () => {
    describe.each(DELETABLE.map((r) => [r.name, r] as const))('%s', (name, kind) => {
      it('refuses each field as unknown_field and deletes nothing', async () => {
        const created = await createResource(l.t, tenant, name);
        const res = await http()
          .delete(`${kind.path}/${created.id}`)
          .set(tenant.auth)
          .send({ a: 1, reason: 'duplicate' });
        expectErrorEnvelope(res, 400, 'validation_error', 'UNKNOWN_FIELD');
        expect(res.body.errors).toEqual([
          { field: 'a', code: 'unknown_field', message: expect.any(String) },
          { field: 'reason', code: 'unknown_field', message: expect.any(String) },
        ]);
        await expectNotDeleted(kind.path, created.id);
      });
    });

    it.each([
      ['an array', '[]'],
      ['a string', '"x"'],
      ['a number', '1'],
      ['null', 'null'],
    ])('refuses %s as a body that is not an object, and deletes nothing', async (_what, body) => {
      const created = await createResource(l.t, tenant, 'plan');
      const res = await raw(
        'DELETE',
        `/v0/plans/${created.id}`,
        ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`],
        body,
      );
      expectRawEnvelope(res, 400, 'validation_error', 'INVALID_TYPE');
      expect(res.body.errors).toEqual([
        { field: 'body', code: 'invalid_type', message: 'the body must be a JSON object' },
      ]);
      await expectNotDeleted('/v0/plans', created.id);
    });

    it('refuses a reserved key as it does elsewhere', async () => {
      const created = await createResource(l.t, tenant, 'plan');
      const body = '{"__proto__":{"a":1}}';
      const res = await raw(
        'DELETE',
        `/v0/plans/${created.id}`,
        ['Content-Type: application/json', `Content-Length: ${body.length}`],
        body,
      );
      expectRawEnvelope(res, 400, 'validation_error', 'RESERVED_KEY');
      expect(res.body.errors).toEqual([
        { field: '__proto__', code: 'reserved_key', message: expect.any(String) },
      ]);
      await expectNotDeleted('/v0/plans', created.id);
    });

    it('refuses it before the Idempotency-Key is claimed, so the key stays unused', async () => {
      const created = await createResource(l.t, tenant, 'plan');
      const del = () =>
        http()
          .delete(`/v0/plans/${created.id}`)
          .set(tenant.auth)
          .set('Idempotency-Key', `delete-body-${created.id}`);
      expectErrorEnvelope(await del().send({ a: 1 }), 400, 'validation_error', 'UNKNOWN_FIELD');
      const res = await del();
      expect(res.status).toBe(200);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(res.body.deletedAt).not.toBeNull();
    });

    it('answers 401 first without a key', async () => {
      const created = await createResource(l.t, tenant, 'plan');
      const res = await http().delete(`/v0/plans/${created.id}`).send({ a: 1 });
      expectErrorEnvelope(res, 401, 'unauthorized');
    });
  });

  describe('__proto__ keys', () => {
    const post = (body: string) =>
      raw(
        'POST',
        '/v0/products',
        ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`],
        body,
      );
    const products = async () =>
      (await http().get('/v0/products?limit=1').set(tenant.auth).expect(200)).body.pagination
        .total as number;

    it.each([
      ['at the top level', '{"name":"x","__proto__":"a"}', '__proto__'],
      ['in metadata', '{"name":"x","metadata":{"__proto__":"a"}}', 'metadata.__proto__'],
      ['holding an object', '{"name":"x","__proto__":{"polluted":"yes"}}', '__proto__'],
      [
        'holding an object in metadata',
        '{"name":"x","metadata":{"__proto__":{"polluted":"yes"}}}',
        'metadata.__proto__',
      ],
      [
        'under constructor',
        '{"name":"x","constructor":{"prototype":{"polluted":"yes"}}}',
        'constructor',
      ],
    ])(
      'answers 400 RESERVED_KEY naming the path (%s), as for constructor',
      async (_where, body, field) => {
        const before = await products();
        const res = await post(body);
        expectRawEnvelope(res, 400, 'validation_error', 'RESERVED_KEY');
        expect(res.body.errors).toEqual([
          { field, code: 'reserved_key', message: expect.any(String) },
        ]);
        expect(await products()).toBe(before);
      },
    );

    it('answers exactly as it answers constructor, the name of the key aside', async () => {
      const proto = await post('{"name":"x","metadata":{"__proto__":"a"}}');
      const ctor = await post('{"name":"x","metadata":{"constructor":"a"}}');
      const strip = (b: any) =>
        JSON.parse(
          JSON.stringify({ ...b, requestId: undefined }).replaceAll('constructor', '__proto__'),
        );
      expect(strip(proto.body)).toEqual(strip(ctor.body));
    });

    it('never reaches a prototype: Object.prototype is untouched', async () => {
      for (const body of [
        '{"__proto__":{"polluted":"yes"}}',
        '{"name":"x","__proto__":{"polluted":"yes"}}',
        '{"name":"x","metadata":{"__proto__":{"polluted":"yes"}}}',
        '[{"__proto__":{"polluted":"yes"}}]',
        '{"name":"x","constructor":{"prototype":{"polluted":"yes"}}}',
      ]) {
        const res = await post(body);
        expect(res.status).toBe(400);
      }
      const created = await createResource(l.t, tenant, 'plan');
      const patch = '{"tax":{"__proto__":{"polluted":"yes"}}}';
      const patched = await raw(
        'PATCH',
        `/v0/plans/${created.id}`,
        ['Content-Type: application/json', `Content-Length: ${patch.length}`],
        patch,
      );
      expectRawEnvelope(patched, 400, 'validation_error', 'RESERVED_KEY');
      expect(Object.prototype).not.toHaveProperty('polluted');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
    });

    it('still answers MALFORMED_JSON to JSON that is not valid', async () => {
      const res = await post('{"__proto__":');
      expectRawEnvelope(res, 400, 'validation_error', 'MALFORMED_JSON');
    });
  });
});
