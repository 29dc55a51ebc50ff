import { TestApp, TestTenant, expectErrorEnvelope, resourceClient } from '../helpers/test-app';
import { TEST_DIALECT } from '../helpers/test-database';
import {
  METRIC_KEYS,
  ISO_UTC,
  MISSING_METRIC,
  MISSING_PRODUCT,
  MALFORMED_IDS,
  fieldErrors,
  startMetricsSuite,
} from '../helpers/billable-metrics-suite';

describe(`billable metrics (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let productA: { id: string };
  let productB: { id: string };

  beforeAll(async () => ({ t, a, productA, b, productB } = await startMetricsSuite()));
  afterAll(() => t.close());

  const { create, get } = resourceClient(() => t, '/v0/billableMetrics');
  const list = (tenant: TestTenant, query = '') =>
    t.http().get(`/v0/billableMetrics${query}`).set(tenant.auth);
  const total = async (tenant: TestTenant) =>
    (await list(tenant).expect(200)).body.pagination.total as number;

  /** A valid SUM metric on the tenant's product, with overrides. */
  const sumMetric = (productId: string, body: object = {}) => ({
    productId,
    name: 'Tokens',
    unit: 'token',
    aggregation: 'SUM',
    valueProperty: '$.tokens',
    ...body,
  });

  async function createMetric(tenant: TestTenant, productId: string, body: object = {}) {
    return (await create(tenant, sumMetric(productId, body)).expect(201)).body;
  }

  it('documents every billable metric route, body and response in the OpenAPI document', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body;
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const json = (op: any, status: string) =>
      op.responses[status].content['application/json'].schema;
    const collection = doc.paths['/v0/billableMetrics'];
    const item = doc.paths['/v0/billableMetrics/{id}'];
    expect(collection.post.requestBody.content['application/json'].schema).toEqual(
      ref('CreateBillableMetricDto'),
    );
    expect(json(collection.post, '201')).toEqual(ref('BillableMetricResponse'));
    expect(json(collection.post, '403')).toEqual(ref('ErrorEnvelope'));
    expect(json(collection.get, '200')).toEqual(ref('BillableMetricListResponse'));
    expect(collection.get.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(['limit', 'offset', 'productId']),
    );
    expect(json(item.get, '200')).toEqual(ref('BillableMetricResponse'));
    expect(json(item.get, '404')).toEqual(ref('ErrorEnvelope'));
    expect(item.patch.requestBody.content['application/json'].schema).toEqual(
      ref('UpdateBillableMetricDto'),
    );
    expect(json(item.patch, '200')).toEqual(ref('BillableMetricResponse'));
    expect(json(item.patch, '412')).toEqual(ref('ErrorEnvelope'));
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.BillableMetricResponse.properties).sort()).toEqual(METRIC_KEYS);
    expect(schemas.BillableMetricResponse.required.sort()).toEqual(METRIC_KEYS);
    expect(schemas.CreateBillableMetricDto.required.sort()).toEqual([
      'aggregation',
      'name',
      'productId',
      'unit',
    ]);
    expect(schemas.CreateBillableMetricDto.properties.aggregation.enum).toEqual([
      'COUNT',
      'SUM',
      'MAX',
      'UNIQUE_COUNT',
      'LATEST',
    ]);
    expect(Object.keys(schemas.UpdateBillableMetricDto.properties).sort()).toEqual([
      'description',
      'name',
      'unit',
    ]);
    for (const schema of [
      'CreateBillableMetricDto',
      'UpdateBillableMetricDto',
      'BillableMetricResponse',
    ]) {
      for (const [key, prop] of Object.entries<any>(schemas[schema].properties)) {
        expect({ schema, key, example: prop.example !== undefined }).toEqual({
          schema,
          key,
          example: true,
        });
      }
    }
  });

  describe('POST /v0/billableMetrics', () => {
    it('creates a SUM metric with every field', async () => {
      const body = sumMetric(productA.id, {
        description: 'Tokens consumed by completions',
        eventType: 'llm.completion',
        merchantId: a.organizationId,
        valueProperty: '$.usage.input_tokens',
      });
      const res = await create(a, body).expect(201);
      expect(Object.keys(res.body).sort()).toEqual(METRIC_KEYS);
      expect(res.body).toEqual({
        ...body,
        id: expect.stringMatching(/^bm_[0-9A-Za-z]{16,40}$/),
        object: 'billableMetric',
        livemode: true,
        createdAt: expect.stringMatching(ISO_UTC),
        updatedAt: res.body.createdAt,
      });
      expect((await get(a, res.body.id).expect(200)).body).toEqual(res.body);
    });

    it('creates a metric from the required fields alone, the others null', async () => {
      const res = await create(a, sumMetric(productA.id)).expect(201);
      expect(res.body).toMatchObject({
        productId: productA.id,
        merchantId: a.organizationId,
        description: null,
        eventType: null,
        valueProperty: '$.tokens',
      });
    });

    it('creates a COUNT metric without valueProperty, returning valueProperty null', async () => {
      const res = await create(a, {
        productId: productA.id,
        name: 'Requests',
        unit: 'request',
        aggregation: 'COUNT',
      }).expect(201);
      expect(res.body).toMatchObject({ aggregation: 'COUNT', valueProperty: null });
      expect(Object.keys(res.body).sort()).toEqual(METRIC_KEYS);
    });

    it('accepts valueProperty null with COUNT', async () => {
      const res = await create(a, {
        productId: productA.id,
        name: 'Requests',
        unit: 'request',
        aggregation: 'COUNT',
        valueProperty: null,
      }).expect(201);
      expect(res.body.valueProperty).toBe(null);
    });

    it('refuses valueProperty with COUNT and creates nothing', async () => {
      const before = await total(a);
      const res = await create(a, sumMetric(productA.id, { aggregation: 'COUNT' }));
      expectErrorEnvelope(res, 400, 'validation_error', 'FIELD_NOT_ALLOWED');
      expect(fieldErrors(res)).toEqual({ valueProperty: 'field_not_allowed' });
      expect(res.body.errors[0].message).toMatch(/COUNT/);
      expect(await total(a)).toBe(before);
    });

    it.each(['SUM', 'MAX', 'UNIQUE_COUNT', 'LATEST'])(
      'creates a %s metric with a valueProperty',
      async (aggregation) => {
        const res = await create(a, sumMetric(productA.id, { aggregation })).expect(201);
        expect(res.body).toMatchObject({ aggregation, valueProperty: '$.tokens' });
      },
    );

    it.each(['SUM', 'MAX', 'UNIQUE_COUNT', 'LATEST'])(
      'requires valueProperty for %s',
      async (aggregation) => {
        const before = await total(a);
        const missing = await create(
          a,
          sumMetric(productA.id, { aggregation, valueProperty: undefined }),
        );
        expectErrorEnvelope(missing, 400, 'validation_error', 'REQUIRED');
        expect(fieldErrors(missing)).toEqual({ valueProperty: 'required' });
        const isNull = await create(
          a,
          sumMetric(productA.id, { aggregation, valueProperty: null }),
        );
        expectErrorEnvelope(isNull, 400, 'validation_error');
        expect(fieldErrors(isNull)).toEqual({ valueProperty: 'invalid_type' });
        expect(await total(a)).toBe(before);
      },
    );

    it.each(['$.a', '$.tokens', '$.usage.input_tokens', '$.A_1.b2.C3', `$.${'x'.repeat(198)}`])(
      'accepts the valueProperty %s',
      async (valueProperty) => {
        const res = await create(a, sumMetric(productA.id, { valueProperty })).expect(201);
        expect(res.body.valueProperty).toBe(valueProperty);
      },
    );

    it.each([
      ['tokens', 'invalid_format'],
      ['$tokens', 'invalid_format'],
      ['$.', 'invalid_format'],
      ['$', 'invalid_format'],
      ['$.a.', 'invalid_format'],
      ['$.a..b', 'invalid_format'],
      ['$.a-b', 'invalid_format'],
      ['$.a b', 'invalid_format'],
      [' $.a', 'invalid_format'],
      ['$.a ', 'invalid_format'],
      ['$.a[0]', 'invalid_format'],
      ['$.é', 'invalid_format'],
      ['', 'invalid_format'],
      [`$.${'x'.repeat(199)}`, 'too_long'],
      [42, 'invalid_type'],
      [['$.a'], 'invalid_type'],
    ])('rejects the valueProperty %j', async (valueProperty, code) => {
      const res = await create(a, sumMetric(productA.id, { valueProperty }));
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(fieldErrors(res)).toEqual({ valueProperty: code });
    });

    it.each([
      ['a missing aggregation', { aggregation: undefined }, 'aggregation', 'required'],
      ['a null aggregation', { aggregation: null }, 'aggregation', 'invalid_type'],
      ['a lower-case aggregation', { aggregation: 'sum' }, 'aggregation', 'invalid_value'],
      ['an unknown aggregation', { aggregation: 'AVG' }, 'aggregation', 'invalid_value'],
      ['a numeric aggregation', { aggregation: 1 }, 'aggregation', 'invalid_type'],
      ['a missing productId', { productId: undefined }, 'productId', 'required'],
      ['a null productId', { productId: null }, 'productId', 'invalid_type'],
      ['a numeric productId', { productId: 12 }, 'productId', 'invalid_type'],
      ['a missing name', { name: undefined }, 'name', 'required'],
      ['a null name', { name: null }, 'name', 'invalid_type'],
      ['a numeric name', { name: 5 }, 'name', 'invalid_type'],
      ['an empty name', { name: '' }, 'name', 'too_short'],
      ['a blank name', { name: ' \n ' }, 'name', 'blank'],
      ['a name of 201 characters', { name: 'n'.repeat(201) }, 'name', 'too_long'],
      ['a name with a NUL character', { name: 'a\u0000' }, 'name', 'invalid_character'],
      ['a missing unit', { unit: undefined }, 'unit', 'required'],
      ['a null unit', { unit: null }, 'unit', 'invalid_type'],
      ['an empty unit', { unit: '' }, 'unit', 'too_short'],
      ['a blank unit', { unit: '   ' }, 'unit', 'blank'],
      ['a unit of 201 characters', { unit: 'u'.repeat(201) }, 'unit', 'too_long'],
      ['a boolean unit', { unit: true }, 'unit', 'invalid_type'],
      [
        'a description of 2001 characters',
        { description: 'd'.repeat(2001) },
        'description',
        'too_long',
      ],
      ['a numeric description', { description: 3 }, 'description', 'invalid_type'],
      ['an empty eventType', { eventType: '' }, 'eventType', 'too_short'],
      ['a blank eventType', { eventType: '  ' }, 'eventType', 'blank'],
      ['an eventType of 201 characters', { eventType: 'e'.repeat(201) }, 'eventType', 'too_long'],
      ['a numeric eventType', { eventType: 9 }, 'eventType', 'invalid_type'],
      ['a malformed merchantId', { merchantId: 'acme' }, 'merchantId', 'invalid_id'],
      ['a null merchantId', { merchantId: null }, 'merchantId', 'invalid_type'],
      ['metadata (not a field of billable metrics)', { metadata: {} }, 'metadata', 'unknown_field'],
      ['an unknown field', { color: 'red' }, 'color', 'unknown_field'],
      ['a read-only field (object)', { object: 'billableMetric' }, 'object', 'field_not_allowed'],
    ])('rejects %s with a 400 naming the field', async (_label, overrides, field, code) => {
      const before = await total(a);
      const res = await create(a, sumMetric(productA.id, overrides));
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(fieldErrors(res)).toEqual({ [field]: code });
      expect(await total(a)).toBe(before);
    });

    it('accepts names, units and event types of exactly 200 characters', async () => {
      const res = await create(
        a,
        sumMetric(productA.id, {
          name: 'n'.repeat(200),
          unit: 'u'.repeat(200),
          eventType: 'e'.repeat(200),
          description: 'd'.repeat(2000),
        }),
      ).expect(201);
      expect(res.body.unit).toHaveLength(200);
    });

    it('stores an empty description as null', async () => {
      const res = await create(a, sumMetric(productA.id, { description: '' })).expect(201);
      expect(res.body.description).toBe(null);
    });

    it('reports every invalid field at once', async () => {
      const res = await create(a, { productId: 1, name: '', aggregation: 'AVG', extra: 1 });
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(fieldErrors(res)).toEqual({
        productId: 'invalid_type',
        name: 'too_short',
        unit: 'required',
        aggregation: 'invalid_value',
        extra: 'unknown_field',
      });
    });

    it.each([
      ["another organization's product", () => productB.id],
      ['a product that does not exist', () => MISSING_PRODUCT],
      ['a malformed product id', () => 'prod-123'],
      ['an id of another kind', () => MISSING_METRIC],
    ])('answers 400 PRODUCT_NOT_FOUND for %s and creates nothing', async (_label, productId) => {
      const before = { a: await total(a), b: await total(b) };
      const res = await create(a, sumMetric(productId()));
      expectErrorEnvelope(res, 400, 'validation_error', 'PRODUCT_NOT_FOUND');
      expect(fieldErrors(res)).toEqual({ productId: 'product_not_found' });
      expect({ a: await total(a), b: await total(b) }).toEqual(before);
    });

    it('answers 403 for a merchantId of another organization and creates nothing', async () => {
      const before = { a: await total(a), b: await total(b) };
      const res = await create(a, sumMetric(productA.id, { merchantId: b.organizationId }));
      expectErrorEnvelope(res, 403, 'forbidden', 'FORBIDDEN');
      expect(res.body.message).toContain('merchantId');
      expect({ a: await total(a), b: await total(b) }).toEqual(before);
    });

    it("answers 403 for another organization's merchantId even with that organization's product", async () => {
      const res = await create(a, sumMetric(productB.id, { merchantId: b.organizationId }));
      expectErrorEnvelope(res, 403, 'forbidden');
    });

    it('answers 401 without an API key', async () => {
      expectErrorEnvelope(
        await t.http().post('/v0/billableMetrics').send(sumMetric(productA.id)),
        401,
        'unauthorized',
      );
    });
  });

  describe('GET /v0/billableMetrics/:id', () => {
    it('returns the metric', async () => {
      const metric = await createMetric(a, productA.id, { eventType: 'e' });
      expect((await get(a, metric.id).expect(200)).body).toEqual(metric);
    });

    it("answers 404 for another organization's metric, exactly as for a missing one", async () => {
      const theirs = await createMetric(b, productB.id);
      const res = await get(a, theirs.id);
      expectErrorEnvelope(res, 404, 'not_found', 'RESOURCE_NOT_FOUND');
      const missing = await get(a, MISSING_METRIC);
      expectErrorEnvelope(missing, 404, 'not_found', 'RESOURCE_NOT_FOUND');
      expect(res.body.message.replace(theirs.id, '<id>')).toBe(
        missing.body.message.replace(MISSING_METRIC, '<id>'),
      );
    });

    it.each(MALFORMED_IDS)('answers 404 for the malformed id %s', async (id) => {
      expectErrorEnvelope(await get(a, id), 404, 'not_found');
    });
  });

  describe('GET /v0/billableMetrics', () => {
    let lister: TestTenant;
    let p1: { id: string };
    let p2: { id: string };
    let created: { id: string; productId: string }[];

    beforeAll(async () => {
      lister = await t.createTenant('Lister');
      p1 = (await t.http().post('/v0/products').set(lister.auth).send({ name: 'P1' }).expect(201))
        .body;
      p2 = (await t.http().post('/v0/products').set(lister.auth).send({ name: 'P2' }).expect(201))
        .body;
      created = [];
      for (let i = 0; i < 11; i++) {
        created.push(await createMetric(lister, i % 3 === 0 ? p2.id : p1.id, { name: `M${i}` }));
      }
    });

    it('answers an empty list for an organization without metrics', async () => {
      const fresh = await t.createTenant('Empty');
      expect((await list(fresh).expect(200)).body).toEqual({
        data: [],
        pagination: { limit: 10, offset: 0, total: 0 },
      });
    });

    it('lists the newest 10 first by default, with the total', async () => {
      const res = await list(lister).expect(200);
      expect(res.body.pagination).toEqual({ limit: 10, offset: 0, total: 11 });
      expect(res.body.data.map((m: any) => m.id)).toEqual(
        created
          .map((m) => m.id)
          .reverse()
          .slice(0, 10),
      );
      for (const metric of res.body.data) expect(Object.keys(metric).sort()).toEqual(METRIC_KEYS);
    });

    it('pages stably: consecutive pages join into the full list, newest first', async () => {
      const ids: string[] = [];
      for (const offset of [0, 4, 8]) {
        const res = await list(lister, `?limit=4&offset=${offset}`).expect(200);
        expect(res.body.pagination).toEqual({ limit: 4, offset, total: 11 });
        ids.push(...res.body.data.map((m: any) => m.id));
      }
      expect(ids).toEqual(created.map((m) => m.id).reverse());
    });

    it('answers an empty page for an offset past the end', async () => {
      expect((await list(lister, '?offset=11').expect(200)).body).toEqual({
        data: [],
        pagination: { limit: 10, offset: 11, total: 11 },
      });
    });

    it('filters by productId, and pages within the filter', async () => {
      const expected = created
        .filter((m) => m.productId === p1.id)
        .map((m) => m.id)
        .reverse();
      const res = await list(lister, `?productId=${p1.id}&limit=100`).expect(200);
      expect(res.body.data.map((m: any) => m.id)).toEqual(expected);
      expect(res.body.pagination.total).toBe(expected.length);
      const page = await list(lister, `?productId=${p1.id}&limit=2&offset=2`).expect(200);
      expect(page.body.data.map((m: any) => m.id)).toEqual(expected.slice(2, 4));
      expect(page.body.pagination).toEqual({ limit: 2, offset: 2, total: expected.length });
    });

    it("matches nothing for another organization's product or a product that does not exist", async () => {
      for (const productId of [productB.id, MISSING_PRODUCT]) {
        expect((await list(lister, `?productId=${productId}`).expect(200)).body).toEqual({
          data: [],
          pagination: { limit: 10, offset: 0, total: 0 },
        });
      }
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=abc', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=1.5', 'offset'],
      ['productId=abc', 'productId'],
      ['productId=', 'productId'],
      ['productId=bm_01JD3YB3C6D9F2G5H8J1K4M7NP', 'productId'],
      ['productId=a&productId=b', 'productId'],
      ['merchantId=acme', 'merchantId'],
      ['aggregation=SUM', 'aggregation'],
    ])('rejects ?%s with a 400 naming %s', async (query, field) => {
      const res = await list(lister, `?${query}`);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(Object.keys(fieldErrors(res))).toEqual([field]);
    });

    // As products and plans take it (the Paygentic SDK sends it): yours, or 403.
    it('filters by your own merchantId, and answers 403 for another organization', async () => {
      const all = await list(lister, '?limit=100').expect(200);
      const own = await list(lister, `?merchantId=${lister.organizationId}&limit=100`).expect(200);
      expect(own.body).toEqual(all.body);
      const other = await list(lister, `?merchantId=${b.organizationId}`);
      expectErrorEnvelope(other, 403, 'forbidden');
      const malformed = await list(lister, '?merchantId=acme');
      expectErrorEnvelope(malformed, 400, 'validation_error');
    });

    it("never lists another organization's metrics", async () => {
      const res = await list(b, '?limit=100').expect(200);
      for (const metric of res.body.data) expect(metric.merchantId).toBe(b.organizationId);
      const ids = new Set(res.body.data.map((m: any) => m.id));
      for (const m of created) expect(ids.has(m.id)).toBe(false);
    });
  });
});
