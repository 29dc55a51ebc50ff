import {
  TestApp,
  TestTenant,
  expectErrorEnvelope,
  resourceClient,
  startTestApp,
} from '../helpers/test-app';
import { TEST_DIALECT } from '../helpers/test-database';
import {
  PRODUCT_KEYS,
  ISO_UTC,
  MISSING_PRODUCT,
  MALFORMED_IDS,
  manyKeys,
  fieldErrors,
} from '../helpers/products-suite';

describe(`products (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let a: TestTenant;
  let b: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    a = await t.createTenant('Acme');
    b = await t.createTenant('Other Org');
  });
  afterAll(() => t.close());

  const { create, get } = resourceClient(() => t, '/v0/products');
  const list = (tenant: TestTenant, query = '') =>
    t.http().get(`/v0/products${query}`).set(tenant.auth);
  const total = async (tenant: TestTenant) =>
    (await list(tenant).expect(200)).body.pagination.total as number;

  async function createProduct(tenant: TestTenant, body: object = {}) {
    const res = await create(tenant, { name: 'Widget', ...body }).expect(201);
    return res.body;
  }

  it('documents every product route, body and response in the OpenAPI document', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body;
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const json = (op: any, status: string) =>
      op.responses[status].content['application/json'].schema;
    const collection = doc.paths['/v0/products'];
    const item = doc.paths['/v0/products/{id}'];
    expect(collection.post.requestBody.content['application/json'].schema).toEqual(
      ref('CreateProductDto'),
    );
    expect(json(collection.post, '201')).toEqual(ref('ProductResponse'));
    expect(json(collection.post, '403')).toEqual(ref('ErrorEnvelope'));
    expect(json(collection.get, '200')).toEqual(ref('ProductListResponse'));
    expect(collection.get.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(['limit', 'offset', 'merchantId']),
    );
    expect(json(item.get, '200')).toEqual(ref('ProductResponse'));
    expect(json(item.get, '404')).toEqual(ref('ErrorEnvelope'));
    expect(item.patch.requestBody.content['application/json'].schema).toEqual(
      ref('UpdateProductDto'),
    );
    expect(json(item.patch, '200')).toEqual(ref('ProductResponse'));
    expect(json(item.patch, '412')).toEqual(ref('ErrorEnvelope'));
    expect(item.patch.parameters.map((p: any) => p.name)).toContain('If-Match');
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.ProductResponse.properties).sort()).toEqual(PRODUCT_KEYS);
    expect(schemas.ProductResponse.required.sort()).toEqual(PRODUCT_KEYS);
    expect(schemas.CreateProductDto.required).toEqual(['name']);
    expect(Object.keys(schemas.UpdateProductDto.properties).sort()).toEqual([
      'description',
      'metadata',
      'name',
    ]);
    for (const schema of ['CreateProductDto', 'UpdateProductDto', 'ProductResponse']) {
      for (const [key, prop] of Object.entries<any>(schemas[schema].properties)) {
        expect({ schema, key, example: prop.example !== undefined }).toEqual({
          schema,
          key,
          example: true,
        });
      }
    }
  });

  describe('POST /v0/products', () => {
    it('creates a product from a name alone, every other key null or empty', async () => {
      const res = await create(a, { name: 'AI Assistant' }).expect(201);
      expect(Object.keys(res.body).sort()).toEqual(PRODUCT_KEYS);
      expect(res.body).toMatchObject({
        object: 'product',
        merchantId: a.organizationId,
        name: 'AI Assistant',
        description: null,
        metadata: {},
      });
      expect(res.body.id).toMatch(/^prod_[0-9A-Za-z]{16,40}$/);
      expect(res.body.createdAt).toMatch(ISO_UTC);
      expect(res.body.updatedAt).toBe(res.body.createdAt);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    });

    it('creates a product with every field and reads it back the same', async () => {
      const body = {
        name: 'AI Assistant',
        description: 'Chat assistant billed by tokens',
        merchantId: a.organizationId,
        metadata: { tier: 'gold', seats: 5, ratio: 0.25, beta: true, emoji: 'ünïcødé ✓' },
      };
      const res = await create(a, body).expect(201);
      expect(res.body).toMatchObject({ ...body, object: 'product' });
      const read = await get(a, res.body.id).expect(200);
      expect(read.body).toEqual(res.body);
    });

    it('returns metadata keys in a fixed (sorted) order on create and read alike', async () => {
      const res = await create(a, { name: 'Sorted', metadata: { zeta: 1, alpha: 2, mid: 3 } });
      expect(Object.keys(res.body.metadata)).toEqual(['alpha', 'mid', 'zeta']);
      const read = await get(a, res.body.id).expect(200);
      expect(JSON.stringify(read.body)).toBe(JSON.stringify(res.body));
    });

    it('stores an empty description as null and accepts an explicit null', async () => {
      expect((await create(a, { name: 'x', description: '' }).expect(201)).body.description).toBe(
        null,
      );
      expect((await create(a, { name: 'x', description: null }).expect(201)).body.description).toBe(
        null,
      );
    });

    it('accepts a name of exactly 200 characters and a description of exactly 2000', async () => {
      const res = await create(a, { name: 'n'.repeat(200), description: 'd'.repeat(2000) });
      expect(res.status).toBe(201);
      expect(res.body.name).toHaveLength(200);
      expect(res.body.description).toHaveLength(2000);
    });

    it.each([
      ['a missing name', {}, 'name', 'required'],
      ['a null name', { name: null }, 'name', 'invalid_type'],
      ['a numeric name', { name: 42 }, 'name', 'invalid_type'],
      ['an array name', { name: ['x'] }, 'name', 'invalid_type'],
      ['an empty name', { name: '' }, 'name', 'too_short'],
      ['a blank name', { name: '   \t ' }, 'name', 'blank'],
      ['a name of one zero-width space', { name: '\u200b' }, 'name', 'blank'],
      ['a name of zero-width joiners', { name: '\u200c\u200d' }, 'name', 'blank'],
      ['a name of a word joiner and a BOM', { name: '\u2060\ufeff' }, 'name', 'blank'],
      ['a name of format characters and spaces', { name: ' \u00ad\u202e\u3000' }, 'name', 'blank'],
      ['a name of 201 characters', { name: 'n'.repeat(201) }, 'name', 'too_long'],
      ['a name with a NUL character', { name: 'a\u0000b' }, 'name', 'invalid_character'],
      [
        'a description of 2001 characters',
        { name: 'x', description: 'd'.repeat(2001) },
        'description',
        'too_long',
      ],
      ['a numeric description', { name: 'x', description: 7 }, 'description', 'invalid_type'],
      ['a malformed merchantId', { name: 'x', merchantId: 'acme' }, 'merchantId', 'invalid_id'],
      ['a numeric merchantId', { name: 'x', merchantId: 1 }, 'merchantId', 'invalid_type'],
      ['a null merchantId', { name: 'x', merchantId: null }, 'merchantId', 'invalid_type'],
      ['an unknown field', { name: 'x', color: 'red' }, 'color', 'unknown_field'],
      [
        'a read-only field (id)',
        { name: 'x', id: 'prod_01JD3Y7K2M5N8P1Q4R6S9T0VWX' },
        'id',
        'field_not_allowed',
      ],
      [
        'a read-only field (object)',
        { name: 'x', object: 'product' },
        'object',
        'field_not_allowed',
      ],
      [
        'a read-only field (createdAt)',
        { name: 'x', createdAt: '2026-01-01T00:00:00.000Z' },
        'createdAt',
        'field_not_allowed',
      ],
    ])('rejects %s with a 400 naming the field', async (_label, body, field, code) => {
      const before = await total(a);
      const res = await create(a, body);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(fieldErrors(res)).toEqual({ [field]: code });
      expect(await total(a)).toBe(before);
    });

    it('reports every invalid field at once', async () => {
      const res = await create(a, { name: '', description: 1, metadata: [], extra: true });
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(fieldErrors(res)).toEqual({
        name: 'too_short',
        description: 'invalid_type',
        metadata: 'invalid_metadata',
        extra: 'unknown_field',
      });
    });

    it.each([
      ['a body that is an array', [{ name: 'x' }]],
      ['a body that is a string', '"x"'],
    ])('rejects %s', async (_label, body) => {
      const res = await t
        .http()
        .post('/v0/products')
        .set(a.auth)
        .set('Content-Type', 'application/json')
        .send(typeof body === 'string' ? body : JSON.stringify(body));
      expectErrorEnvelope(res, 400, 'validation_error');
    });

    it('rejects malformed JSON with MALFORMED_JSON', async () => {
      const res = await t
        .http()
        .post('/v0/products')
        .set(a.auth)
        .set('Content-Type', 'application/json')
        .send('{"name": "x",');
      expectErrorEnvelope(res, 400, 'validation_error', 'MALFORMED_JSON');
    });

    it('answers 403 for a merchantId of another organization and creates nothing', async () => {
      const before = await total(a);
      const res = await create(a, { name: 'Stolen', merchantId: b.organizationId });
      expectErrorEnvelope(res, 403, 'forbidden', 'FORBIDDEN');
      expect(res.body.message).toContain('merchantId');
      expect(await total(a)).toBe(before);
      expect(await total(b)).toBe(0);
    });

    it('answers 403 for a well-formed merchantId that is no organization at all', async () => {
      const res = await create(a, { name: 'x', merchantId: 'org_0000000000000000000000' });
      expectErrorEnvelope(res, 403, 'forbidden');
    });

    it('answers 401 without an API key', async () => {
      const res = await t.http().post('/v0/products').send({ name: 'x' });
      expectErrorEnvelope(res, 401, 'unauthorized');
    });

    describe('metadata', () => {
      it('accepts 50 keys, a 40-character key and a 500-character value', async () => {
        const metadata = {
          ...manyKeys(48),
          ['k'.repeat(40)]: 'v'.repeat(500),
          flag: false,
        };
        const res = await create(a, { name: 'x', metadata }).expect(201);
        expect(Object.keys(res.body.metadata)).toHaveLength(50);
        expect(res.body.metadata['k'.repeat(40)]).toHaveLength(500);
        expect(res.body.metadata.flag).toBe(false);
      });

      it.each([
        ['51 keys', manyKeys(51)],
        ['a 41-character key', { ['k'.repeat(41)]: 'v' }],
        ['an empty key', { '': 'v' }],
        ['a 501-character value', { note: 'v'.repeat(501) }],
        ['a nested object', { address: { city: 'Paris' } }],
        ['an array value', { tags: ['a', 'b'] }],
        ['a null value', { gone: null }],
        ['a NUL character in a value', { note: 'a\u0000b' }],
      ])('rejects metadata with %s', async (_label, metadata) => {
        const before = await total(a);
        const res = await create(a, { name: 'x', metadata });
        expectErrorEnvelope(res, 400, 'validation_error');
        expect(res.body.errors).toHaveLength(1);
        expect(res.body.errors[0].field).toMatch(/^metadata(\.note)?$/);
        expect(await total(a)).toBe(before);
      });

      it.each([
        ['an array', ['a']],
        ['a string', 'gold'],
        ['a number', 5],
        ['null', null],
      ])('rejects metadata that is %s', async (_label, metadata) => {
        const res = await create(a, { name: 'x', metadata });
        expectErrorEnvelope(res, 400, 'validation_error');
        expect(Object.keys(fieldErrors(res))).toEqual(['metadata']);
      });
    });
  });

  describe('GET /v0/products/:id', () => {
    it('returns the product', async () => {
      const product = await createProduct(a, { description: 'd', metadata: { k: 'v' } });
      const res = await get(a, product.id).expect(200);
      expect(res.body).toEqual(product);
    });

    it("answers 404 for another organization's product, exactly as for a missing one", async () => {
      const theirs = await createProduct(b);
      const res = await get(a, theirs.id);
      expectErrorEnvelope(res, 404, 'not_found', 'RESOURCE_NOT_FOUND');
      const missing = await get(a, MISSING_PRODUCT);
      expectErrorEnvelope(missing, 404, 'not_found', 'RESOURCE_NOT_FOUND');
      expect(res.body.message.replace(theirs.id, '<id>')).toBe(
        missing.body.message.replace(MISSING_PRODUCT, '<id>'),
      );
    });

    it.each(MALFORMED_IDS)('answers 404 for the malformed id %s', async (id) => {
      expectErrorEnvelope(await get(a, id), 404, 'not_found');
    });
  });

  describe('GET /v0/products', () => {
    let lister: TestTenant;
    let created: { id: string }[];

    beforeAll(async () => {
      lister = await t.createTenant('Lister');
      created = [];
      for (let i = 0; i < 12; i++) created.push(await createProduct(lister, { name: `P${i}` }));
    });

    it('answers an empty list for an organization without products', async () => {
      const fresh = await t.createTenant('Empty');
      const res = await list(fresh).expect(200);
      expect(res.body).toEqual({ data: [], pagination: { limit: 10, offset: 0, total: 0 } });
    });

    it('lists the newest 10 first by default, with the total', async () => {
      const res = await list(lister).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'pagination']);
      expect(res.body.pagination).toEqual({ limit: 10, offset: 0, total: 12 });
      expect(res.body.data.map((p: any) => p.id)).toEqual(
        created
          .map((p) => p.id)
          .reverse()
          .slice(0, 10),
      );
      for (const product of res.body.data)
        expect(Object.keys(product).sort()).toEqual(PRODUCT_KEYS);
    });

    it('pages stably: consecutive pages join into the full list, newest first, without repeats', async () => {
      const ids: string[] = [];
      for (const offset of [0, 5, 10]) {
        const res = await list(lister, `?limit=5&offset=${offset}`).expect(200);
        expect(res.body.pagination).toEqual({ limit: 5, offset, total: 12 });
        ids.push(...res.body.data.map((p: any) => p.id));
      }
      expect(ids).toEqual(created.map((p) => p.id).reverse());
      const createdAts = (await list(lister, '?limit=100').expect(200)).body.data.map(
        (p: any) => p.createdAt,
      );
      expect([...createdAts].sort().reverse()).toEqual(createdAts);
    });

    it('answers an empty page for an offset past the end', async () => {
      const res = await list(lister, '?offset=12').expect(200);
      expect(res.body).toEqual({ data: [], pagination: { limit: 10, offset: 12, total: 12 } });
      const far = await list(lister, '?offset=1000000').expect(200);
      expect(far.body.data).toEqual([]);
    });

    it('accepts limit 1 and limit 100', async () => {
      expect((await list(lister, '?limit=1').expect(200)).body.data).toHaveLength(1);
      expect((await list(lister, '?limit=100').expect(200)).body.data).toHaveLength(12);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=abc', 'offset'],
      ['offset=1e3', 'offset'],
      ['color=red', 'color'],
      ['productId=prod_01JD3Y7K2M5N8P1Q4R6S9T0VWX', 'productId'],
      ['merchantId=acme', 'merchantId'],
    ])('rejects ?%s with a 400 naming %s', async (query, field) => {
      const res = await list(lister, `?${query}`);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(Object.keys(fieldErrors(res))).toEqual([field]);
    });

    it.each([
      ['limit=101', 'limit', 'out_of_range'],
      ['limit=1000000000000000', 'limit', 'out_of_range'],
      ['limit=99999999999999999999', 'limit', 'out_of_range'],
      ['limit=-99999999999999999999', 'limit', 'out_of_range'],
      ['offset=99999999999999999999', 'offset', 'out_of_range'],
      ['limit=1e1', 'limit', 'invalid_type'],
    ])('answers ?%s with %s %s, however many digits', async (query, field, code) => {
      const res = await list(lister, `?${query}`);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors).toEqual([{ field, code, message: expect.any(String) }]);
    });

    it('filters by your own merchantId', async () => {
      const res = await list(lister, `?merchantId=${lister.organizationId}&limit=100`).expect(200);
      expect(res.body.pagination.total).toBe(12);
    });

    it('answers 403 for a merchantId filter naming another organization', async () => {
      const res = await list(lister, `?merchantId=${a.organizationId}`);
      expectErrorEnvelope(res, 403, 'forbidden');
    });

    it("never lists another organization's products", async () => {
      const res = await list(b, '?limit=100').expect(200);
      const ids = new Set(res.body.data.map((p: any) => p.id));
      for (const p of created) expect(ids.has(p.id)).toBe(false);
      for (const p of res.body.data) expect(p.merchantId).toBe(b.organizationId);
    });
  });
});
