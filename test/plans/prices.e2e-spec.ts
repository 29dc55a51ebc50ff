import { BillableMetric } from '../../src/catalog/entities/billable-metric.entity';
import { Product } from '../../src/catalog/entities/product.entity';
import { etagOf } from '../../src/common/etag';
import { Price } from '../../src/plans/entities/price.entity';
import { createCatalog } from '../helpers/catalog-factory';
import { createPlan, createPrice } from '../helpers/plans-factory';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

const PRICE_KEYS = [
  'id',
  'object',
  'livemode',
  'billableMetricId',
  'model',
  'invoiceDisplayName',
  'properties',
  'paymentTerm',
  'planId',
  'createdAt',
  'updatedAt',
  'deletedAt',
];

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe(`prices (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let product: Product;
  let metrics: BillableMetric[];
  let otherMetric: BillableMetric;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant('Acme');
    other = await t.createTenant('Other');
    ({ product, metrics } = await createCatalog(t, tenant.organizationId, 3));
    otherMetric = (await createCatalog(t, other.organizationId, 1)).metrics[0];
  });
  afterAll(() => t.close());

  const post = (body: unknown, who: TestTenant = tenant) =>
    t
      .http()
      .post('/v0/prices')
      .set(who.auth)
      .send(body as object);
  const validBody = (overrides: Record<string, unknown> = {}) => ({
    billableMetricId: metrics[0].id,
    model: 'standard',
    invoiceDisplayName: 'API calls',
    properties: { unitPrice: '0.25' },
    ...overrides,
  });
  const countPrices = () =>
    t.db.read((m) => m.count(Price, { where: { organizationId: tenant.organizationId } }));

  describe('POST /v0/prices', () => {
    it('creates a free standard price with every field and a Location header', async () => {
      const res = await post(validBody()).expect(201);
      expect(Object.keys(res.body)).toEqual(PRICE_KEYS);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^price_[0-9A-Za-z]{16,40}$/),
        object: 'price',
        livemode: true,
        billableMetricId: metrics[0].id,
        model: 'standard',
        invoiceDisplayName: 'API calls',
        properties: { unitPrice: '0.25' },
        paymentTerm: 'in_arrears',
        planId: null,
        createdAt: expect.stringMatching(ISO),
        updatedAt: res.body.createdAt,
        deletedAt: null,
      });
      expect(res.headers.location).toBe(`/v0/prices/${res.body.id}`);
      const got = await t.http().get(res.headers.location).set(tenant.auth).expect(200);
      expect(got.body).toEqual(res.body);
    });

    it.each([
      ['dynamic', { minPrice: '0.10', maxPrice: '0.50' }],
      ['dynamic', { minPrice: '1', maxPrice: '1.0' }],
      [
        'volume',
        {
          default: '0.2',
          parameters: { function: 'linear', gradient: '0.001', min: '0', max: '10000' },
        },
      ],
    ])('creates a %s price with properties %j', async (model, properties) => {
      const res = await post(validBody({ model, properties })).expect(201);
      expect(res.body.model).toBe(model);
      expect(res.body.properties).toEqual(properties);
      const got = await t.http().get(`/v0/prices/${res.body.id}`).set(tenant.auth).expect(200);
      expect(JSON.stringify(got.body.properties)).toBe(JSON.stringify(properties));
    });

    it.each(['0.000000000001', '123456789012345678.123456789012', '0.00002', '0', '10.10'])(
      'returns %s exactly as sent, on create and on GET',
      async (amount) => {
        const res = await post(validBody({ properties: { unitPrice: amount } })).expect(201);
        expect(res.body.properties.unitPrice).toBe(amount);
        const got = await t.http().get(`/v0/prices/${res.body.id}`).set(tenant.auth).expect(200);
        expect(got.body.properties.unitPrice).toBe(amount);
        const dyn = await post(
          validBody({ model: 'dynamic', properties: { minPrice: amount, maxPrice: amount } }),
        ).expect(201);
        const gotDyn = await t.http().get(`/v0/prices/${dyn.body.id}`).set(tenant.auth);
        expect(gotDyn.body.properties).toEqual({ minPrice: amount, maxPrice: amount });
      },
    );

    it.each<[string, unknown]>([
      ['exponent notation', '1e-5'],
      ['a negative amount', '-1'],
      ['a leading zero', '01'],
      ['a leading space', ' 1'],
      ['a JSON number', 1.5],
      ['19 integer digits', '1234567890123456789'],
      ['13 fractional digits', '0.0000000000001'],
      ['an empty string', ''],
      ['a trailing point', '1.'],
      ['a comma', '1,5'],
    ])('rejects %s as an amount with invalid_decimal', async (_label, amount) => {
      const before = await countPrices();
      const res = await post(validBody({ properties: { unitPrice: amount } }));
      expectErrorEnvelope(res, 400, 'validation_error', 'INVALID_DECIMAL');
      expect(res.body.errors).toEqual([
        { field: 'properties.unitPrice', code: 'invalid_decimal', message: expect.any(String) },
      ]);
      expect(await countPrices()).toBe(before);
    });

    it('rejects a null amount as invalid_type, as null is for every other field', async () => {
      const before = await countPrices();
      const res = await post(validBody({ properties: { unitPrice: null } }));
      expectErrorEnvelope(res, 400, 'validation_error', 'INVALID_TYPE');
      expect(res.body.errors).toEqual([
        { field: 'properties.unitPrice', code: 'invalid_type', message: 'may not be null' },
      ]);
      expect(await countPrices()).toBe(before);
    });

    it.each<[string, () => Record<string, unknown>, { field: string; code: string }[]]>([
      [
        'an empty body',
        () => ({}),
        [
          { field: 'billableMetricId', code: 'required' },
          { field: 'model', code: 'required' },
          { field: 'invoiceDisplayName', code: 'required' },
          { field: 'properties', code: 'required' },
        ],
      ],
      [
        'an unknown model',
        () => validBody({ model: 'tiered' }),
        [{ field: 'model', code: 'invalid_value' }],
      ],
      [
        'a model that is not a string',
        () => validBody({ model: 1 }),
        [{ field: 'model', code: 'invalid_type' }],
      ],
      [
        'a model in upper case',
        () => validBody({ model: 'STANDARD' }),
        [{ field: 'model', code: 'invalid_value' }],
      ],
      [
        'properties that are not an object',
        () => validBody({ properties: 'x' }),
        [{ field: 'properties', code: 'invalid_type' }],
      ],
      [
        'properties that are an array',
        () => validBody({ properties: [] }),
        [{ field: 'properties', code: 'invalid_type' }],
      ],
      [
        'a missing unitPrice',
        () => validBody({ properties: {} }),
        [{ field: 'properties.unitPrice', code: 'required' }],
      ],
      [
        'an extra property',
        () => validBody({ properties: { unitPrice: '1', tiers: [] } }),
        [{ field: 'properties.tiers', code: 'unknown_field' }],
      ],
      [
        'dynamic minPrice above maxPrice',
        () => validBody({ model: 'dynamic', properties: { minPrice: '2', maxPrice: '1.99' } }),
        [{ field: 'properties.minPrice', code: 'invalid_range' }],
      ],
      [
        'volume min above max',
        () =>
          validBody({
            model: 'volume',
            properties: {
              default: '1',
              parameters: { function: 'linear', gradient: '1', min: '10', max: '9' },
            },
          }),
        [{ field: 'properties.parameters.min', code: 'invalid_range' }],
      ],
      [
        'a volume function other than linear',
        () =>
          validBody({
            model: 'volume',
            properties: {
              default: '1',
              parameters: { function: 'step', gradient: '1', min: '0', max: '9' },
            },
          }),
        [{ field: 'properties.parameters.function', code: 'invalid_value' }],
      ],
      [
        'a blank invoiceDisplayName',
        () => validBody({ invoiceDisplayName: '   ' }),
        [{ field: 'invoiceDisplayName', code: 'blank' }],
      ],
      [
        'an invoiceDisplayName of 201 characters',
        () => validBody({ invoiceDisplayName: 'x'.repeat(201) }),
        [{ field: 'invoiceDisplayName', code: 'too_long' }],
      ],
      [
        'a numeric invoiceDisplayName',
        () => validBody({ invoiceDisplayName: 5 }),
        [{ field: 'invoiceDisplayName', code: 'invalid_type' }],
      ],
      [
        'a billableMetricId that is not a string',
        () => validBody({ billableMetricId: 7 }),
        [{ field: 'billableMetricId', code: 'invalid_type' }],
      ],
      [
        'an unknown field',
        () => validBody({ currency: 'USD' }),
        [{ field: 'currency', code: 'unknown_field' }],
      ],
      [
        'planId, which only a plan sets',
        () => validBody({ planId: null }),
        [{ field: 'planId', code: 'field_not_allowed' }],
      ],
    ])('rejects %s', async (_label, body, expected) => {
      const before = await countPrices();
      const res = await post(body());
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors.map(({ field, code }: any) => ({ field, code }))).toEqual(expected);
      expect(await countPrices()).toBe(before);
    });

    it.each([
      ['of another organization', () => otherMetric.id],
      ['that does not exist', () => 'bm_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
      ['of the wrong shape', () => 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ])('rejects a billable metric %s with 400 on billableMetricId', async (_label, id) => {
      const before = await countPrices();
      const res = await post(validBody({ billableMetricId: id() }));
      expectErrorEnvelope(res, 400, 'validation_error', 'BILLABLE_METRIC_NOT_FOUND');
      expect(res.body.errors).toEqual([
        {
          field: 'billableMetricId',
          code: 'billable_metric_not_found',
          message: expect.any(String),
        },
      ]);
      expect(await countPrices()).toBe(before);
    });
  });

  describe('GET /v0/prices/{id}', () => {
    it.each([
      ['an unknown id', 'price_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
      ['a malformed id', 'not-an-id'],
      ['an id of another type', 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ])('answers 404 for %s', async (_label, id) => {
      const res = await t.http().get(`/v0/prices/${id}`).set(tenant.auth);
      expectErrorEnvelope(res, 404, 'not_found');
    });

    it("answers 404 for another organization's price", async () => {
      const theirs = await createPrice(t, other, otherMetric.id);
      const res = await t.http().get(`/v0/prices/${theirs.id}`).set(tenant.auth);
      expectErrorEnvelope(res, 404, 'not_found');
    });
  });

  describe('GET /v0/prices', () => {
    let acme: TestTenant;
    let mA: BillableMetric;
    let mB: BillableMetric;
    let ids: string[];

    beforeAll(async () => {
      // An organization of its own, so the totals below are exact.
      acme = await t.createTenant('Lists');
      const rival = await t.createTenant('Rival');
      const cat = await createCatalog(t, acme.organizationId, 2);
      [mA, mB] = cat.metrics;
      ids = [];
      for (let i = 0; i < 5; i++) ids.push((await createPrice(t, acme, i < 3 ? mA.id : mB.id)).id);
      const rivalMetric = (await createCatalog(t, rival.organizationId, 1)).metrics[0];
      await createPrice(t, rival, rivalMetric.id);
      await createPlan(t, acme, cat.product.id, { prices: [ids[0]] });
      await t.http().delete(`/v0/prices/${ids[4]}`).set(acme.auth).expect(204);
    });

    const list = (query: string) => t.http().get(`/v0/prices${query}`).set(acme.auth);

    it('lists live prices newest first, without other organizations', async () => {
      const res = await list('').expect(200);
      expect(res.body.pagination).toEqual({ limit: 10, offset: 0, total: 4 });
      expect(res.body.data.map((p: any) => p.id)).toEqual([ids[3], ids[2], ids[1], ids[0]]);
      for (const p of res.body.data) expect(Object.keys(p)).toEqual(PRICE_KEYS);
    });

    it('includes deleted prices with includeDeleted=true', async () => {
      const res = await list('?includeDeleted=true').expect(200);
      expect(res.body.data.map((p: any) => p.id)).toEqual([...ids].reverse());
      expect(res.body.data[0].deletedAt).toMatch(ISO);
    });

    it('pages with limit and offset, stable across pages', async () => {
      const first = await list('?limit=2').expect(200);
      const second = await list('?limit=2&offset=2').expect(200);
      expect(first.body.data.map((p: any) => p.id)).toEqual([ids[3], ids[2]]);
      expect(second.body.data.map((p: any) => p.id)).toEqual([ids[1], ids[0]]);
      expect(second.body.pagination).toEqual({ limit: 2, offset: 2, total: 4 });
      const past = await list('?offset=50').expect(200);
      expect(past.body).toEqual({ data: [], pagination: { limit: 10, offset: 50, total: 4 } });
    });

    it('filters by billableMetricId and by planId', async () => {
      const byMetric = await list(`?billableMetricId=${mB.id}`).expect(200);
      expect(byMetric.body.data.map((p: any) => p.id)).toEqual([ids[3]]);
      const plan = (await list(`?limit=100`)).body.data.find((p: any) => p.planId).planId;
      const byPlan = await list(`?planId=${plan}`).expect(200);
      expect(byPlan.body.data.map((p: any) => p.id)).toEqual([ids[0]]);
      const none = await list('?planId=plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC').expect(200);
      expect(none.body.pagination.total).toBe(0);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=abc', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=1.5', 'offset'],
      ['includeDeleted=yes', 'includeDeleted'],
      ['billableMetricId=abc', 'billableMetricId'],
      ['planId=prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC', 'planId'],
      ['productId=prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC', 'productId'],
      ['limit=1&limit=2', 'limit'],
    ])('rejects ?%s', async (query, field) => {
      const res = await list(`?${query}`);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors.map((e: any) => e.field)).toEqual([field]);
    });
  });

  describe('PATCH /v0/prices/{id}', () => {
    it('changes invoiceDisplayName and replaces properties as a whole', async () => {
      const price = await createPrice(t, tenant, metrics[0].id);
      await new Promise((r) => setTimeout(r, 5));
      const res = await t
        .http()
        .patch(`/v0/prices/${price.id}`)
        .set(tenant.auth)
        .send({ invoiceDisplayName: 'Calls', properties: { unitPrice: '0.00002' } })
        .expect(200);
      expect(res.body).toEqual({
        ...price,
        invoiceDisplayName: 'Calls',
        properties: { unitPrice: '0.00002' },
        updatedAt: expect.stringMatching(ISO),
      });
      expect(res.body.updatedAt > price.updatedAt).toBe(true);
      const got = await t.http().get(`/v0/prices/${price.id}`).set(tenant.auth);
      expect(got.body).toEqual(res.body);
    });

    it('validates properties against the price model and does not merge them', async () => {
      const price = await createPrice(t, tenant, metrics[0].id, {
        model: 'dynamic',
        properties: { minPrice: '1', maxPrice: '2' },
      });
      const partial = await t
        .http()
        .patch(`/v0/prices/${price.id}`)
        .set(tenant.auth)
        .send({ properties: { maxPrice: '3' } });
      expectErrorEnvelope(partial, 400, 'validation_error');
      expect(partial.body.errors.map((e: any) => [e.field, e.code])).toEqual([
        ['properties.minPrice', 'required'],
      ]);
      const otherModel = await t
        .http()
        .patch(`/v0/prices/${price.id}`)
        .set(tenant.auth)
        .send({ properties: { unitPrice: '3' } });
      expectErrorEnvelope(otherModel, 400, 'validation_error');
      const bad = await t
        .http()
        .patch(`/v0/prices/${price.id}`)
        .set(tenant.auth)
        .send({ properties: { minPrice: '1e-5', maxPrice: '2' } });
      expectErrorEnvelope(bad, 400, 'validation_error', 'INVALID_DECIMAL');
      const got = await t.http().get(`/v0/prices/${price.id}`).set(tenant.auth);
      expect(got.body).toEqual(price);
    });

    it('answers 200 and changes nothing for an empty body', async () => {
      const price = await createPrice(t, tenant, metrics[0].id);
      const res = await t.http().patch(`/v0/prices/${price.id}`).set(tenant.auth).send({});
      expect(res.status).toBe(200);
      expect(res.body).toEqual(price);
    });

    it.each([
      ['model', { model: 'dynamic' }],
      ['billableMetricId', { billableMetricId: 'bm_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' }],
      ['planId', { planId: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' }],
    ])('refuses to change %s with a 400 naming it', async (field, body) => {
      const price = await createPrice(t, tenant, metrics[0].id);
      const res = await t.http().patch(`/v0/prices/${price.id}`).set(tenant.auth).send(body);
      expectErrorEnvelope(res, 400, 'validation_error', 'FIELD_NOT_ALLOWED');
      expect(res.body.errors).toEqual([
        { field, code: 'field_not_allowed', message: expect.any(String) },
      ]);
    });

    it.each([
      ['a null invoiceDisplayName', { invoiceDisplayName: null }, 'invoiceDisplayName'],
      ['null properties', { properties: null }, 'properties'],
      ['an unknown field', { unitPrice: '1' }, 'unitPrice'],
    ])('rejects %s', async (_label, body, field) => {
      const price = await createPrice(t, tenant, metrics[0].id);
      const res = await t.http().patch(`/v0/prices/${price.id}`).set(tenant.auth).send(body);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors.map((e: any) => e.field)).toEqual([field]);
    });

    it('shows the new properties in the plan that holds the price', async () => {
      const price = await createPrice(t, tenant, metrics[0].id);
      const plan = await createPlan(t, tenant, product.id, { prices: [price.id] });
      await t
        .http()
        .patch(`/v0/prices/${price.id}`)
        .set(tenant.auth)
        .send({ properties: { unitPrice: '9.99' } })
        .expect(200);
      const got = await t.http().get(`/v0/plans/${plan.id}`).set(tenant.auth);
      expect(got.body.prices[0].properties).toEqual({ unitPrice: '9.99' });
    });

    it('answers 409 PRICE_DELETED for a deleted price', async () => {
      const price = await createPrice(t, tenant, metrics[0].id);
      await t.http().delete(`/v0/prices/${price.id}`).set(tenant.auth).expect(204);
      const res = await t
        .http()
        .patch(`/v0/prices/${price.id}`)
        .set(tenant.auth)
        .send({ invoiceDisplayName: 'x' });
      expectErrorEnvelope(res, 409, 'conflict', 'PRICE_DELETED');
    });

    it('answers 412 for a stale If-Match and 200 for the current one', async () => {
      const price = await createPrice(t, tenant, metrics[0].id);
      const stale = await t
        .http()
        .patch(`/v0/prices/${price.id}`)
        .set(tenant.auth)
        .set('If-Match', '"stale"')
        .send({ invoiceDisplayName: 'x' });
      expectErrorEnvelope(stale, 412, 'precondition_failed');
      const ok = await t
        .http()
        .patch(`/v0/prices/${price.id}`)
        .set(tenant.auth)
        .set('If-Match', etagOf(price))
        .send({ invoiceDisplayName: 'y' })
        .expect(200);
      expect(ok.body.invoiceDisplayName).toBe('y');
      const again = await t
        .http()
        .patch(`/v0/prices/${price.id}`)
        .set(tenant.auth)
        .set('If-Match', etagOf(price))
        .send({ invoiceDisplayName: 'z' });
      expectErrorEnvelope(again, 412, 'precondition_failed');
    });

    it("answers 404 for another organization's price", async () => {
      const theirs = await createPrice(t, other, otherMetric.id);
      const res = await t
        .http()
        .patch(`/v0/prices/${theirs.id}`)
        .set(tenant.auth)
        .send({ invoiceDisplayName: 'mine now' });
      expectErrorEnvelope(res, 404, 'not_found');
      const got = await t.http().get(`/v0/prices/${theirs.id}`).set(other.auth);
      expect(got.body.invoiceDisplayName).toBe('API calls');
    });
  });

  describe('DELETE /v0/prices/{id}', () => {
    it('deletes a free price softly: 204, then GET shows deletedAt; deleting again is 204', async () => {
      const price = await createPrice(t, tenant, metrics[0].id);
      const res = await t.http().delete(`/v0/prices/${price.id}`).set(tenant.auth).expect(204);
      expect(res.text).toBe('');
      const got = await t.http().get(`/v0/prices/${price.id}`).set(tenant.auth).expect(200);
      expect(got.body).toEqual({
        ...price,
        updatedAt: got.body.deletedAt,
        deletedAt: expect.stringMatching(ISO),
      });
      await t.http().delete(`/v0/prices/${price.id}`).set(tenant.auth).expect(204);
      const again = await t.http().get(`/v0/prices/${price.id}`).set(tenant.auth);
      expect(again.body).toEqual(got.body);
    });

    it('answers 409 PRICE_IN_USE for a price in a live plan and leaves it alone', async () => {
      const price = await createPrice(t, tenant, metrics[1].id);
      const plan = await createPlan(t, tenant, product.id, { prices: [price.id] });
      const res = await t.http().delete(`/v0/prices/${price.id}`).set(tenant.auth);
      expectErrorEnvelope(res, 409, 'conflict', 'PRICE_IN_USE');
      const got = await t.http().get(`/v0/prices/${price.id}`).set(tenant.auth);
      expect(got.body).toMatchObject({ planId: plan.id, deletedAt: null });
      // Once the plan lets it go, it can be deleted.
      await t
        .http()
        .patch(`/v0/plans/${plan.id}`)
        .set(tenant.auth)
        .send({ prices: [] })
        .expect(200);
      await t.http().delete(`/v0/prices/${price.id}`).set(tenant.auth).expect(204);
    });

    it('answers 412 for a stale If-Match', async () => {
      const price = await createPrice(t, tenant, metrics[0].id);
      const res = await t
        .http()
        .delete(`/v0/prices/${price.id}`)
        .set(tenant.auth)
        .set('If-Match', '"stale"');
      expectErrorEnvelope(res, 412, 'precondition_failed');
      await t
        .http()
        .delete(`/v0/prices/${price.id}`)
        .set(tenant.auth)
        .set('If-Match', etagOf(price))
        .expect(204);
    });

    it.each([
      ['an unknown id', () => 'price_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
      ['a malformed id', () => 'price_!'],
    ])('answers 404 for %s', async (_label, id) => {
      const res = await t.http().delete(`/v0/prices/${id()}`).set(tenant.auth);
      expectErrorEnvelope(res, 404, 'not_found');
    });

    it("answers 404 for another organization's price and leaves it alone", async () => {
      const theirs = await createPrice(t, other, otherMetric.id);
      const res = await t.http().delete(`/v0/prices/${theirs.id}`).set(tenant.auth);
      expectErrorEnvelope(res, 404, 'not_found');
      const got = await t.http().get(`/v0/prices/${theirs.id}`).set(other.auth);
      expect(got.body.deletedAt).toBeNull();
    });
  });
});
