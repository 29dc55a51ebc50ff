import { IsNull } from 'typeorm';
import { BillableMetric } from '../../src/catalog/entities/billable-metric.entity';
import { Product } from '../../src/catalog/entities/product.entity';
import { etagOf } from '../../src/common/http/etag';
import { Plan } from '../../src/plans/entities/plan.entity';
import { createCatalog, createProduct } from '../helpers/catalog-factory';
import { createPlan, createPrice } from '../helpers/plans-factory';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

const PLAN_KEYS = [
  'id',
  'object',
  'name',
  'invoiceDisplayName',
  'description',
  'billingInterval',
  'currency',
  'merchantId',
  'productId',
  'tax',
  'prices',
  'createdAt',
  'updatedAt',
  'deletedAt',
];

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_PRICE = 'price_01JD3Y2Q6J8C4N1V9W5X7Z0ABC';
const UNKNOWN_PRODUCT = 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC';

const fields = (res: { body: any }) =>
  res.body.errors.map(({ field, code }: { field: string; code: string }) => ({ field, code }));

describe(`plans (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let product: Product;
  let metrics: BillableMetric[];
  let otherProduct: Product;
  let otherMetrics: BillableMetric[];

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant('Acme');
    other = await t.createTenant('Other');
    ({ product, metrics } = await createCatalog(t, tenant.organizationId, 4));
    ({ product: otherProduct, metrics: otherMetrics } = await createCatalog(
      t,
      other.organizationId,
      1,
    ));
  });
  afterAll(() => t.close());

  const post = (body: unknown, who: TestTenant = tenant) =>
    t
      .http()
      .post('/v0/plans')
      .set(who.auth)
      .send(body as object);
  const patch = (id: string, body: unknown, who: TestTenant = tenant) =>
    t
      .http()
      .patch(`/v0/plans/${id}`)
      .set(who.auth)
      .send(body as object);
  const getPlan = (id: string, who: TestTenant = tenant) =>
    t.http().get(`/v0/plans/${id}`).set(who.auth);
  const getPrice = (id: string, who: TestTenant = tenant) =>
    t.http().get(`/v0/prices/${id}`).set(who.auth);
  const countPlans = () =>
    t.db.read((m) => m.count(Plan, { where: { organizationId: tenant.organizationId } }));
  const priceFor = (metric: BillableMetric, body: Record<string, unknown> = {}) =>
    createPrice(t, tenant, metric.id, body);

  describe('POST /v0/plans', () => {
    it("creates the seed's sample plan: 201 with every field, full prices and a Location header", async () => {
      const price = await priceFor(metrics[0], {
        invoiceDisplayName: 'API calls',
        properties: { unitPrice: '0.25' },
      });
      const body = {
        name: 'Pro',
        invoiceDisplayName: 'Pro plan',
        description: 'Usage-based access to the API',
        merchantId: tenant.organizationId,
        productId: product.id,
        billingInterval: 'monthly',
        currency: 'USD',
        tax: { behavior: 'exclusive', code: 'txcd_10103001', rate: '8.25' },
        prices: [price.id],
      };
      const res = await post(body);
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(PLAN_KEYS);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^plan_[0-9A-Za-z]{16,40}$/),
        object: 'plan',
        name: 'Pro',
        invoiceDisplayName: 'Pro plan',
        description: 'Usage-based access to the API',
        billingInterval: 'monthly',
        currency: 'USD',
        merchantId: tenant.organizationId,
        productId: product.id,
        tax: { behavior: 'exclusive', code: 'txcd_10103001', rate: '8.25' },
        prices: [
          {
            id: price.id,
            object: 'price',
            billableMetricId: metrics[0].id,
            model: 'standard',
            invoiceDisplayName: 'API calls',
            properties: { unitPrice: '0.25' },
            planId: res.body.id,
            createdAt: price.createdAt,
            updatedAt: res.body.createdAt,
            deletedAt: null,
          },
        ],
        createdAt: expect.stringMatching(ISO),
        updatedAt: res.body.createdAt,
        deletedAt: null,
      });
      expect(res.headers.location).toBe(`/v0/plans/${res.body.id}`);
      const got = await t.http().get(res.headers.location).set(tenant.auth).expect(200);
      expect(got.body).toEqual(res.body);
      const attached = await getPrice(price.id);
      expect(attached.body).toEqual(res.body.prices[0]);
    });

    it('fills the defaults: invoiceDisplayName = name, USD, exclusive tax at "0", no prices', async () => {
      const res = await post({ name: 'Basic', productId: product.id, billingInterval: 'weekly' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        name: 'Basic',
        invoiceDisplayName: 'Basic',
        description: null,
        currency: 'USD',
        merchantId: tenant.organizationId,
        tax: { behavior: 'exclusive', code: null, rate: '0' },
        prices: [],
        deletedAt: null,
      });
      const partialTax = await post({
        name: 'Taxed',
        productId: product.id,
        billingInterval: 'yearly',
        tax: { rate: '20' },
      }).expect(201);
      expect(partialTax.body.tax).toEqual({ behavior: 'exclusive', code: null, rate: '20' });
    });

    it.each(['weekly', 'monthly', 'quarterly', 'yearly'])(
      'accepts billingInterval %s',
      async (billingInterval) => {
        const res = await post({ name: 'P', productId: product.id, billingInterval }).expect(201);
        expect(res.body.billingInterval).toBe(billingInterval);
      },
    );

    it.each(['EUR', 'JPY', 'GBP'])('accepts currency %s', async (currency) => {
      const res = await post({
        name: 'P',
        productId: product.id,
        billingInterval: 'monthly',
        currency,
      }).expect(201);
      expect(res.body.currency).toBe(currency);
    });

    it.each([
      ['0', 'inclusive', null],
      ['100', 'exclusive', 'x'.repeat(50)],
      ['0.0001', 'inclusive', 'txcd_1'],
      ['99.9999', 'exclusive', null],
    ])('accepts tax rate %s (behavior %s, code %s) exactly', async (rate, behavior, code) => {
      const res = await post({
        name: 'P',
        productId: product.id,
        billingInterval: 'monthly',
        tax: { rate, behavior, code },
      }).expect(201);
      expect(res.body.tax).toEqual({ behavior, code, rate });
      const got = await getPlan(res.body.id);
      expect(got.body.tax).toEqual({ behavior, code, rate });
    });

    it('lists prices in the order the request gave, on create and on GET', async () => {
      const p = [
        await priceFor(metrics[0]),
        await priceFor(metrics[1]),
        await priceFor(metrics[2]),
      ];
      const ids = [p[2].id, p[0].id, p[1].id];
      const res = await post({
        name: 'Ordered',
        productId: product.id,
        billingInterval: 'monthly',
        prices: ids,
      }).expect(201);
      expect(res.body.prices.map((x: any) => x.id)).toEqual(ids);
      const got = await getPlan(res.body.id);
      expect(got.body.prices.map((x: any) => x.id)).toEqual(ids);
      expect(got.body).toEqual(res.body);
    });

    it('keeps every kind of price exact through a plan', async () => {
      const amounts = ['0.000000000001', '123456789012345678.123456789012', '0.00002'];
      const prices = [
        await priceFor(metrics[0], { properties: { unitPrice: amounts[0] } }),
        await priceFor(metrics[1], {
          model: 'dynamic',
          properties: { minPrice: amounts[2], maxPrice: amounts[1] },
        }),
        await priceFor(metrics[2], {
          model: 'volume',
          properties: {
            default: amounts[2],
            parameters: { function: 'linear', gradient: amounts[0], min: '0', max: amounts[1] },
          },
        }),
      ];
      const res = await post({
        name: 'Exact',
        productId: product.id,
        billingInterval: 'monthly',
        prices: prices.map((p) => p.id),
      }).expect(201);
      const got = await getPlan(res.body.id);
      expect(got.body.prices.map((p: any) => p.properties)).toEqual(
        prices.map((p) => p.properties),
      );
      expect(JSON.stringify(got.body)).toBe(JSON.stringify(res.body));
    });

    describe('rejects a bad body with 400 and creates nothing', () => {
      const base = () => ({ name: 'Pro', productId: product.id, billingInterval: 'monthly' });
      it.each<[string, () => Record<string, unknown>, { field: string; code: string }[]]>([
        [
          'an empty body',
          () => ({}),
          [
            { field: 'name', code: 'required' },
            { field: 'productId', code: 'required' },
            { field: 'billingInterval', code: 'required' },
          ],
        ],
        [
          'a missing name',
          () => ({ ...base(), name: undefined }),
          [{ field: 'name', code: 'required' }],
        ],
        [
          'a null name',
          () => ({ ...base(), name: null }),
          [{ field: 'name', code: 'invalid_type' }],
        ],
        ['a blank name', () => ({ ...base(), name: '  ' }), [{ field: 'name', code: 'blank' }]],
        ['an empty name', () => ({ ...base(), name: '' }), [{ field: 'name', code: 'too_short' }]],
        [
          'a numeric name',
          () => ({ ...base(), name: 42 }),
          [{ field: 'name', code: 'invalid_type' }],
        ],
        [
          'a 201-character name',
          () => ({ ...base(), name: 'x'.repeat(201) }),
          [{ field: 'name', code: 'too_long' }],
        ],
        [
          'a null invoiceDisplayName',
          () => ({ ...base(), invoiceDisplayName: null }),
          [{ field: 'invoiceDisplayName', code: 'invalid_type' }],
        ],
        [
          'a 2001-character description',
          () => ({ ...base(), description: 'x'.repeat(2001) }),
          [{ field: 'description', code: 'too_long' }],
        ],
        [
          'a missing productId',
          () => ({ ...base(), productId: undefined }),
          [{ field: 'productId', code: 'required' }],
        ],
        [
          'a numeric productId',
          () => ({ ...base(), productId: 1 }),
          [{ field: 'productId', code: 'invalid_type' }],
        ],
        [
          'a missing billingInterval',
          () => ({ ...base(), billingInterval: undefined }),
          [{ field: 'billingInterval', code: 'required' }],
        ],
        [
          'billingInterval daily',
          () => ({ ...base(), billingInterval: 'daily' }),
          [{ field: 'billingInterval', code: 'invalid_value' }],
        ],
        [
          'billingInterval MONTHLY',
          () => ({ ...base(), billingInterval: 'MONTHLY' }),
          [{ field: 'billingInterval', code: 'invalid_value' }],
        ],
        [
          'currency XYZ',
          () => ({ ...base(), currency: 'XYZ' }),
          [{ field: 'currency', code: 'invalid_currency' }],
        ],
        [
          'currency usd',
          () => ({ ...base(), currency: 'usd' }),
          [{ field: 'currency', code: 'invalid_currency' }],
        ],
        [
          'a null currency',
          () => ({ ...base(), currency: null }),
          [{ field: 'currency', code: 'invalid_type' }],
        ],
        [
          'a merchantId of the wrong shape',
          () => ({ ...base(), merchantId: 'acme' }),
          [{ field: 'merchantId', code: 'invalid_id' }],
        ],
        [
          'tax that is a string',
          () => ({ ...base(), tax: 'none' }),
          [{ field: 'tax', code: 'invalid_type' }],
        ],
        [
          'tax that is an array',
          () => ({ ...base(), tax: [] }),
          [{ field: 'tax', code: 'invalid_type' }],
        ],
        ['a null tax', () => ({ ...base(), tax: null }), [{ field: 'tax', code: 'invalid_type' }]],
        [
          'an unknown tax key',
          () => ({ ...base(), tax: { rate: '1', country: 'US' } }),
          [{ field: 'tax.country', code: 'unknown_field' }],
        ],
        [
          'tax behavior both',
          () => ({ ...base(), tax: { behavior: 'both' } }),
          [{ field: 'tax.behavior', code: 'invalid_value' }],
        ],
        [
          'a null tax behavior',
          () => ({ ...base(), tax: { behavior: null } }),
          [{ field: 'tax.behavior', code: 'invalid_type' }],
        ],
        [
          'a 51-character tax code',
          () => ({ ...base(), tax: { code: 'x'.repeat(51) } }),
          [{ field: 'tax.code', code: 'too_long' }],
        ],
        [
          'a numeric tax code',
          () => ({ ...base(), tax: { code: 7 } }),
          [{ field: 'tax.code', code: 'invalid_type' }],
        ],
        [
          'tax rate above 100',
          () => ({ ...base(), tax: { rate: '100.0001' } }),
          [{ field: 'tax.rate', code: 'out_of_range' }],
        ],
        [
          'tax rate 101',
          () => ({ ...base(), tax: { rate: '101' } }),
          [{ field: 'tax.rate', code: 'out_of_range' }],
        ],
        [
          'tax rate with 5 decimals',
          () => ({ ...base(), tax: { rate: '8.12345' } }),
          [{ field: 'tax.rate', code: 'out_of_range' }],
        ],
        [
          'tax rate as a number',
          () => ({ ...base(), tax: { rate: 8.25 } }),
          [{ field: 'tax.rate', code: 'invalid_decimal' }],
        ],
        [
          'tax rate 1e-5',
          () => ({ ...base(), tax: { rate: '1e-5' } }),
          [{ field: 'tax.rate', code: 'invalid_decimal' }],
        ],
        [
          'tax rate -1',
          () => ({ ...base(), tax: { rate: '-1' } }),
          [{ field: 'tax.rate', code: 'invalid_decimal' }],
        ],
        [
          'a null tax rate',
          () => ({ ...base(), tax: { rate: null } }),
          [{ field: 'tax.rate', code: 'invalid_type' }],
        ],
        [
          'prices that is not an array',
          () => ({ ...base(), prices: UNKNOWN_PRICE }),
          [{ field: 'prices', code: 'invalid_type' }],
        ],
        [
          'null prices',
          () => ({ ...base(), prices: null }),
          [{ field: 'prices', code: 'invalid_type' }],
        ],
        [
          '101 prices',
          () => ({ ...base(), prices: Array.from({ length: 101 }, () => UNKNOWN_PRICE) }),
          [{ field: 'prices', code: 'too_many_items' }],
        ],
        [
          'a price id that is a number',
          () => ({ ...base(), prices: [7] }),
          [{ field: 'prices[0]', code: 'invalid_type' }],
        ],
        [
          'a price id that is an object',
          () => ({ ...base(), prices: [{ id: UNKNOWN_PRICE }] }),
          [{ field: 'prices[0]', code: 'invalid_type' }],
        ],
        [
          'a price id of the wrong shape',
          () => ({ ...base(), prices: ['nope'] }),
          [{ field: 'prices[0]', code: 'price_not_found' }],
        ],
        [
          'a product id as a price id',
          () => ({ ...base(), prices: [product.id] }),
          [{ field: 'prices[0]', code: 'price_not_found' }],
        ],
        [
          'the same price id twice',
          () => ({ ...base(), prices: [UNKNOWN_PRICE, UNKNOWN_PRICE] }),
          [{ field: 'prices[1]', code: 'duplicate_price' }],
        ],
        [
          'an unknown field',
          () => ({ ...base(), status: 'active' }),
          [{ field: 'status', code: 'unknown_field' }],
        ],
        [
          'an id',
          () => ({ ...base(), id: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' }),
          [{ field: 'id', code: 'unknown_field' }],
        ],
      ])('%s', async (_label, body, expected) => {
        const before = await countPlans();
        const res = await post(body());
        expectErrorEnvelope(res, 400, 'validation_error');
        expect(fields(res)).toEqual(expected);
        expect(await countPlans()).toBe(before);
      });
    });

    it('accepts merchantId equal to your organization and answers 403 for another', async () => {
      const own = await post({
        name: 'P',
        productId: product.id,
        billingInterval: 'monthly',
        merchantId: tenant.organizationId,
      }).expect(201);
      expect(own.body.merchantId).toBe(tenant.organizationId);
      const before = await countPlans();
      const res = await post({
        name: 'P',
        productId: product.id,
        billingInterval: 'monthly',
        merchantId: other.organizationId,
      });
      expectErrorEnvelope(res, 403, 'forbidden');
      expect(await countPlans()).toBe(before);
    });

    it.each([
      ['of another organization', () => otherProduct.id],
      ['that does not exist', () => UNKNOWN_PRODUCT],
      ['of the wrong shape', () => 'prod_?'],
      ['that is a billable metric id', () => metrics[0].id],
    ])('answers 400 PRODUCT_NOT_FOUND for a product %s', async (_label, productId) => {
      const before = await countPlans();
      const res = await post({ name: 'P', productId: productId(), billingInterval: 'monthly' });
      expectErrorEnvelope(res, 400, 'validation_error', 'PRODUCT_NOT_FOUND');
      expect(fields(res)).toEqual([{ field: 'productId', code: 'product_not_found' }]);
      expect(await countPlans()).toBe(before);
    });

    describe('price rules', () => {
      const attempt = (prices: string[], productId = product.id) =>
        post({ name: 'Rules', productId, billingInterval: 'monthly', prices });

      it('answers 400 price_not_found for a price of another organization or an unknown one', async () => {
        const mine = await priceFor(metrics[0]);
        const theirs = await createPrice(t, other, otherMetrics[0].id);
        const before = await countPlans();
        const res = await attempt([mine.id, theirs.id, UNKNOWN_PRICE]);
        expectErrorEnvelope(res, 400, 'validation_error', 'PRICE_NOT_FOUND');
        expect(fields(res)).toEqual([
          { field: 'prices[1]', code: 'price_not_found' },
          { field: 'prices[2]', code: 'price_not_found' },
        ]);
        expect(await countPlans()).toBe(before);
        expect((await getPrice(mine.id)).body).toEqual(mine);
        expect((await getPrice(theirs.id, other)).body.planId).toBeNull();
      });

      it('answers 400 price_deleted for a deleted price', async () => {
        const price = await priceFor(metrics[0]);
        await t.http().delete(`/v0/prices/${price.id}`).set(tenant.auth).expect(204);
        const res = await attempt([price.id]);
        expectErrorEnvelope(res, 400, 'validation_error', 'PRICE_DELETED');
        expect(fields(res)).toEqual([{ field: 'prices[0]', code: 'price_deleted' }]);
      });

      it('answers 409 PRICE_IN_USE naming the price that another live plan holds', async () => {
        const taken = await priceFor(metrics[0]);
        const free = await priceFor(metrics[1]);
        const holder = await createPlan(t, tenant, product.id, { prices: [taken.id] });
        const before = await countPlans();
        const res = await attempt([free.id, taken.id]);
        expectErrorEnvelope(res, 409, 'conflict', 'PRICE_IN_USE');
        expect(fields(res)).toEqual([{ field: 'prices[1]', code: 'price_in_use' }]);
        expect(await countPlans()).toBe(before);
        expect((await getPrice(free.id)).body).toEqual(free);
        expect((await getPrice(taken.id)).body.planId).toBe(holder.id);
      });

      it('answers 400 BILLABLE_METRIC_NOT_IN_PRODUCT for a price of another product', async () => {
        const { metrics: foreign } = await createCatalog(t, tenant.organizationId, 1);
        const ok = await priceFor(metrics[0]);
        const elsewhere = await priceFor(foreign[0]);
        const res = await attempt([ok.id, elsewhere.id]);
        expectErrorEnvelope(res, 400, 'validation_error', 'BILLABLE_METRIC_NOT_IN_PRODUCT');
        expect(fields(res)).toEqual([
          { field: 'prices[1]', code: 'billable_metric_not_in_product' },
        ]);
        expect((await getPrice(ok.id)).body.planId).toBeNull();
      });

      it('answers 400 DUPLICATE_BILLABLE_METRIC for two prices of one metric', async () => {
        const a = await priceFor(metrics[0]);
        const b = await priceFor(metrics[1]);
        const c = await priceFor(metrics[0], { properties: { unitPrice: '1' } });
        const res = await attempt([a.id, b.id, c.id]);
        expectErrorEnvelope(res, 400, 'validation_error', 'DUPLICATE_BILLABLE_METRIC');
        expect(fields(res)).toEqual([{ field: 'prices[2]', code: 'duplicate_billable_metric' }]);
        for (const p of [a, b, c]) expect((await getPrice(p.id)).body.planId).toBeNull();
      });

      it('answers 400 DUPLICATE_PRICE for one price listed twice', async () => {
        const a = await priceFor(metrics[0]);
        const res = await attempt([a.id, a.id]);
        expectErrorEnvelope(res, 400, 'validation_error', 'DUPLICATE_PRICE');
        expect(fields(res)).toEqual([{ field: 'prices[1]', code: 'duplicate_price' }]);
      });

      it('takes 100 prices in one plan', async () => {
        const { product: big, metrics: many } = await createCatalog(t, tenant.organizationId, 100);
        const prices = [];
        for (const m of many) prices.push(await createPrice(t, tenant, m.id));
        const ids = prices.map((p) => p.id).reverse();
        const res = await attempt(ids, big.id).expect(201);
        expect(res.body.prices.map((p: any) => p.id)).toEqual(ids);
        const got = await getPlan(res.body.id);
        expect(got.body).toEqual(res.body);
      });
    });
  });

  describe('GET /v0/plans/{id}', () => {
    it.each([
      ['an unknown id', 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
      ['a malformed id', 'plan_'],
      ['an id of another type', 'price_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
      ['an id too long to be one', `plan_${'A'.repeat(90)}`],
    ])('answers 404 for %s', async (_label, id) => {
      const res = await getPlan(id);
      expectErrorEnvelope(res, 404, 'not_found');
    });

    it("answers 404 for another organization's plan", async () => {
      const theirs = await createPlan(t, other, otherProduct.id);
      expectErrorEnvelope(await getPlan(theirs.id), 404, 'not_found');
      await getPlan(theirs.id, other).expect(200);
    });
  });

  describe('GET /v0/plans', () => {
    let acme: TestTenant;
    let p1: Product;
    let p2: Product;
    let plans: any[];

    beforeAll(async () => {
      acme = await t.createTenant('Lists');
      p1 = await createProduct(t, acme.organizationId);
      p2 = await createProduct(t, acme.organizationId);
      plans = [];
      for (let i = 0; i < 5; i++) {
        plans.push(await createPlan(t, acme, i < 3 ? p1.id : p2.id, { name: `Plan ${i}` }));
      }
      await createPlan(t, other, otherProduct.id);
      await t.http().delete(`/v0/plans/${plans[1].id}`).set(acme.auth).expect(200);
    });

    const list = (query: string, who: TestTenant = acme) =>
      t.http().get(`/v0/plans${query}`).set(who.auth);
    const ids = (res: { body: any }) => res.body.data.map((p: any) => p.id);

    it('lists live plans newest first, with full prices, without other organizations', async () => {
      const res = await list('').expect(200);
      expect(res.body.pagination).toEqual({ limit: 10, offset: 0, total: 4 });
      expect(ids(res)).toEqual([plans[4].id, plans[3].id, plans[2].id, plans[0].id]);
      for (const p of res.body.data) expect(Object.keys(p)).toEqual(PLAN_KEYS);
    });

    it('includes deleted plans with includeDeleted=true', async () => {
      const res = await list('?includeDeleted=true').expect(200);
      expect(ids(res)).toEqual(plans.map((p) => p.id).reverse());
      expect(res.body.data[3].deletedAt).toMatch(ISO);
      const explicit = await list('?includeDeleted=false').expect(200);
      expect(explicit.body.pagination.total).toBe(4);
    });

    it('pages with limit and offset, stable across pages', async () => {
      const a = await list('?limit=3').expect(200);
      const b = await list('?limit=3&offset=3').expect(200);
      expect([...ids(a), ...ids(b)]).toEqual([plans[4].id, plans[3].id, plans[2].id, plans[0].id]);
      expect(b.body.pagination).toEqual({ limit: 3, offset: 3, total: 4 });
      const past = await list('?offset=100').expect(200);
      expect(past.body).toEqual({ data: [], pagination: { limit: 10, offset: 100, total: 4 } });
      const max = await list('?limit=100').expect(200);
      expect(max.body.data).toHaveLength(4);
    });

    it('filters by productId and merchantId', async () => {
      const byProduct = await list(`?productId=${p2.id}`).expect(200);
      expect(ids(byProduct)).toEqual([plans[4].id, plans[3].id]);
      const byProductAll = await list(`?productId=${p1.id}&includeDeleted=true`).expect(200);
      expect(ids(byProductAll)).toEqual([plans[2].id, plans[1].id, plans[0].id]);
      const byMerchant = await list(`?merchantId=${acme.organizationId}`).expect(200);
      expect(byMerchant.body.pagination.total).toBe(4);
      const foreign = await list(`?productId=${otherProduct.id}`).expect(200);
      expect(foreign.body).toEqual({ data: [], pagination: { limit: 10, offset: 0, total: 0 } });
    });

    /** What a COUNT over the plans themselves says, for the same filters as a list. */
    const counted = (productId?: string, includeDeleted = false) =>
      t.db.read((m) =>
        m.count(Plan, {
          where: {
            organizationId: acme.organizationId,
            ...(productId ? { productId } : {}),
            ...(includeDeleted ? {} : { deletedAt: IsNull() }),
          },
        }),
      );
    const totals = async () => {
      const out: Record<string, [number, number]> = {};
      for (const productId of [undefined, p1.id, p2.id]) {
        for (const includeDeleted of [false, true]) {
          const query = new URLSearchParams({
            ...(productId ? { productId } : {}),
            includeDeleted: String(includeDeleted),
          });
          const res = await list(`?${query.toString()}`).expect(200);
          out[`${productId ?? 'all'} ${includeDeleted}`] = [
            res.body.pagination.total,
            await counted(productId, includeDeleted),
          ];
        }
      }
      return out;
    };

    it('gives every filter the total a count of the plans gives (kept counts, not COUNT(*))', async () => {
      const before = await totals();
      expect(before[`${p1.id} true`]).toEqual([3, 3]);
      expect(before[`${p1.id} false`]).toEqual([2, 2]);
      for (const [total, count] of Object.values(before)) expect(total).toBe(count);
      // Concurrent creates and deletes, a repeated delete and a refused create.
      const created = await Promise.all(
        Array.from({ length: 12 }, (_, i) => createPlan(t, acme, i % 2 ? p1.id : p2.id)),
      );
      await Promise.all(
        [created[0], created[1], created[2], created[2]].map((p) =>
          t.http().delete(`/v0/plans/${p.id}`).set(acme.auth),
        ),
      );
      await t.http().delete(`/v0/plans/${created[3].id}`).set(acme.auth).expect(200);
      const catalog = await createCatalog(t, acme.organizationId, 1);
      const taken = await createPrice(t, acme, catalog.metrics[0].id);
      await createPlan(t, acme, catalog.product.id, { prices: [taken.id] });
      const refused = await post(
        {
          name: 'Taken',
          productId: catalog.product.id,
          billingInterval: 'monthly',
          prices: [taken.id],
        },
        acme,
      );
      expect(refused.status).toBe(409);
      const after = await totals();
      for (const [key, [total, count]] of Object.entries(after)) {
        expect({ key, total }).toEqual({ key, total: count });
      }
      expect(after['all true'][0]).toBe(before['all true'][0] + 13);
      expect(after['all false'][0]).toBe(before['all false'][0] + 13 - 4);
    });

    it('answers 403 for a merchantId of another organization', async () => {
      const res = await list(`?merchantId=${other.organizationId}`);
      expectErrorEnvelope(res, 403, 'forbidden');
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=x', 'offset'],
      ['includeDeleted=1', 'includeDeleted'],
      ['productId=abc', 'productId'],
      ['merchantId=abc', 'merchantId'],
      ['currency=USD', 'currency'],
      ['offset=1&offset=2', 'offset'],
    ])('rejects ?%s with 400', async (query, field) => {
      const res = await list(`?${query}`);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors.map((e: any) => e.field)).toEqual([field]);
    });
  });

  describe('PATCH /v0/plans/{id}', () => {
    it('changes the fields sent and keeps the others', async () => {
      const price = await priceFor(metrics[0]);
      const plan = await createPlan(t, tenant, product.id, {
        description: 'old',
        tax: { behavior: 'inclusive', code: 'A1', rate: '5' },
        prices: [price.id],
      });
      await new Promise((r) => setTimeout(r, 5));
      const res = await patch(plan.id, {
        name: 'Pro 2',
        invoiceDisplayName: 'Pro two',
        description: null,
        billingInterval: 'quarterly',
      }).expect(200);
      expect(res.body).toEqual({
        ...plan,
        name: 'Pro 2',
        invoiceDisplayName: 'Pro two',
        description: null,
        billingInterval: 'quarterly',
        updatedAt: expect.stringMatching(ISO),
      });
      expect(res.body.updatedAt > plan.updatedAt).toBe(true);
      expect((await getPlan(plan.id)).body).toEqual(res.body);
    });

    it('merges tax key by key; code null clears the code', async () => {
      const plan = await createPlan(t, tenant, product.id, {
        tax: { behavior: 'inclusive', code: 'A1', rate: '5' },
      });
      const rate = await patch(plan.id, { tax: { rate: '7.5' } }).expect(200);
      expect(rate.body.tax).toEqual({ behavior: 'inclusive', code: 'A1', rate: '7.5' });
      const code = await patch(plan.id, { tax: { code: null } }).expect(200);
      expect(code.body.tax).toEqual({ behavior: 'inclusive', code: null, rate: '7.5' });
      const behavior = await patch(plan.id, { tax: { behavior: 'exclusive' } }).expect(200);
      expect(behavior.body.tax).toEqual({ behavior: 'exclusive', code: null, rate: '7.5' });
      const empty = await patch(plan.id, { tax: {} }).expect(200);
      expect(empty.body).toEqual(behavior.body);
    });

    it('answers 200 and writes nothing for an empty body or unchanged values', async () => {
      const price = await priceFor(metrics[0]);
      const plan = await createPlan(t, tenant, product.id, { prices: [price.id] });
      await new Promise((r) => setTimeout(r, 5));
      const empty = await patch(plan.id, {}).expect(200);
      expect(empty.body).toEqual(plan);
      const same = await patch(plan.id, { name: plan.name, prices: [price.id] }).expect(200);
      expect(same.body).toEqual(plan);
    });

    it('replaces the price list: dropped prices become free, new ones are taken, order follows', async () => {
      const [a, b, c] = [
        await priceFor(metrics[0]),
        await priceFor(metrics[1]),
        await priceFor(metrics[2]),
      ];
      const plan = await createPlan(t, tenant, product.id, { prices: [a.id, b.id] });
      const res = await patch(plan.id, { prices: [c.id, b.id] }).expect(200);
      expect(res.body.prices.map((p: any) => p.id)).toEqual([c.id, b.id]);
      expect(res.body.prices.every((p: any) => p.planId === plan.id)).toBe(true);
      expect((await getPlan(plan.id)).body).toEqual(res.body);
      const dropped = await getPrice(a.id);
      expect(dropped.body).toMatchObject({ planId: null, deletedAt: null });
      // A freed price can go into another plan.
      const next = await createPlan(t, tenant, product.id, { prices: [a.id] });
      expect(next.prices[0].planId).toBe(next.id);
      // ... and an empty list frees them all.
      const emptied = await patch(plan.id, { prices: [] }).expect(200);
      expect(emptied.body.prices).toEqual([]);
      expect((await getPrice(b.id)).body.planId).toBeNull();
      expect((await getPrice(c.id)).body.planId).toBeNull();
    });

    it('reorders the prices it already holds', async () => {
      const [a, b, c] = [
        await priceFor(metrics[0]),
        await priceFor(metrics[1]),
        await priceFor(metrics[2]),
      ];
      const plan = await createPlan(t, tenant, product.id, { prices: [a.id, b.id, c.id] });
      const res = await patch(plan.id, { prices: [c.id, a.id, b.id] }).expect(200);
      expect(res.body.prices.map((p: any) => p.id)).toEqual([c.id, a.id, b.id]);
      expect((await getPlan(plan.id)).body).toEqual(res.body);
    });

    it('applies the create rules to the new list', async () => {
      const [a, b] = [await priceFor(metrics[0]), await priceFor(metrics[1])];
      const dup = await priceFor(metrics[0]);
      const plan = await createPlan(t, tenant, product.id, { prices: [a.id] });
      const cases: [unknown[], number, string][] = [
        [[a.id, dup.id], 400, 'DUPLICATE_BILLABLE_METRIC'],
        [[a.id, a.id], 400, 'DUPLICATE_PRICE'],
        [[UNKNOWN_PRICE], 400, 'PRICE_NOT_FOUND'],
        [[b.id, 5], 400, 'INVALID_TYPE'],
      ];
      for (const [prices, status, code] of cases) {
        const res = await patch(plan.id, { prices });
        expectErrorEnvelope(res, status, status === 400 ? 'validation_error' : 'conflict', code);
      }
      expect((await getPlan(plan.id)).body).toEqual(plan);
      expect((await getPrice(b.id)).body.planId).toBeNull();
    });

    it.each([
      ['merchantId', () => ({ merchantId: tenant.organizationId })],
      ['productId', () => ({ productId: product.id })],
      ['currency', () => ({ currency: 'EUR' })],
    ])('refuses to change %s with a 400 naming it', async (field, body) => {
      const plan = await createPlan(t, tenant, product.id);
      const res = await patch(plan.id, body());
      expectErrorEnvelope(res, 400, 'validation_error', 'FIELD_NOT_ALLOWED');
      expect(fields(res)).toEqual([{ field, code: 'field_not_allowed' }]);
      expect((await getPlan(plan.id)).body).toEqual(plan);
    });

    it.each<[string, Record<string, unknown>, string, string]>([
      ['a null name', { name: null }, 'name', 'invalid_type'],
      ['a blank name', { name: ' ' }, 'name', 'blank'],
      [
        'a null invoiceDisplayName',
        { invoiceDisplayName: null },
        'invoiceDisplayName',
        'invalid_type',
      ],
      ['a null billingInterval', { billingInterval: null }, 'billingInterval', 'invalid_type'],
      ['billingInterval daily', { billingInterval: 'daily' }, 'billingInterval', 'invalid_value'],
      ['null tax', { tax: null }, 'tax', 'invalid_type'],
      ['a bad tax rate', { tax: { rate: '100.5' } }, 'tax.rate', 'out_of_range'],
      ['an unknown tax key', { tax: { region: 'EU' } }, 'tax.region', 'unknown_field'],
      ['null prices', { prices: null }, 'prices', 'invalid_type'],
      ['an unknown field', { deletedAt: null }, 'deletedAt', 'unknown_field'],
    ])('rejects %s', async (_label, body, field, code) => {
      const plan = await createPlan(t, tenant, product.id);
      const res = await patch(plan.id, body);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(fields(res)).toEqual([{ field, code }]);
      expect((await getPlan(plan.id)).body).toEqual(plan);
    });

    it('answers 409 PLAN_DELETED for a deleted plan', async () => {
      const plan = await createPlan(t, tenant, product.id);
      await t.http().delete(`/v0/plans/${plan.id}`).set(tenant.auth).expect(200);
      const res = await patch(plan.id, { name: 'again' });
      expectErrorEnvelope(res, 409, 'conflict', 'PLAN_DELETED');
      const empty = await patch(plan.id, {});
      expectErrorEnvelope(empty, 409, 'conflict', 'PLAN_DELETED');
    });

    it('answers 412 for a stale If-Match and applies a current one', async () => {
      const plan = await createPlan(t, tenant, product.id);
      const stale = await t
        .http()
        .patch(`/v0/plans/${plan.id}`)
        .set(tenant.auth)
        .set('If-Match', '"not-the-etag"')
        .send({ name: 'x' });
      expectErrorEnvelope(stale, 412, 'precondition_failed');
      const ok = await t
        .http()
        .patch(`/v0/plans/${plan.id}`)
        .set(tenant.auth)
        .set('If-Match', etagOf(plan))
        .send({ name: 'y' })
        .expect(200);
      expect(ok.body.name).toBe('y');
      // The first reader's tag is now stale.
      const late = await t
        .http()
        .patch(`/v0/plans/${plan.id}`)
        .set(tenant.auth)
        .set('If-Match', etagOf(plan))
        .send({ name: 'z' });
      expectErrorEnvelope(late, 412, 'precondition_failed');
      expect((await getPlan(plan.id)).body.name).toBe('y');
    });

    it("treats a change to one of the plan's prices as a change of the plan for If-Match", async () => {
      const price = await priceFor(metrics[0]);
      const plan = await createPlan(t, tenant, product.id, { prices: [price.id] });
      await t
        .http()
        .patch(`/v0/prices/${price.id}`)
        .set(tenant.auth)
        .send({ properties: { unitPrice: '2' } })
        .expect(200);
      const res = await t
        .http()
        .patch(`/v0/plans/${plan.id}`)
        .set(tenant.auth)
        .set('If-Match', etagOf(plan))
        .send({ name: 'x' });
      expectErrorEnvelope(res, 412, 'precondition_failed');
    });

    it("answers 404 for another organization's plan and 400 for their prices", async () => {
      const theirs = await createPlan(t, other, otherProduct.id);
      const res = await patch(theirs.id, { name: 'mine' });
      expectErrorEnvelope(res, 404, 'not_found');
      expect((await getPlan(theirs.id, other)).body.name).toBe(theirs.name);

      const mine = await createPlan(t, tenant, product.id);
      const theirPrice = await createPrice(t, other, otherMetrics[0].id);
      const ref = await patch(mine.id, { prices: [theirPrice.id] });
      expectErrorEnvelope(ref, 400, 'validation_error', 'PRICE_NOT_FOUND');
      expect(fields(ref)).toEqual([{ field: 'prices[0]', code: 'price_not_found' }]);
      expect((await getPrice(theirPrice.id, other)).body.planId).toBeNull();
    });

    it.each([['plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'], ['nope']])('answers 404 for %s', async (id) => {
      expectErrorEnvelope(await patch(id, { name: 'x' }), 404, 'not_found');
    });
  });

  describe('DELETE /v0/plans/{id}', () => {
    it('answers 200 with the plan, deletedAt set, and deletes its prices', async () => {
      const [a, b] = [await priceFor(metrics[0]), await priceFor(metrics[1])];
      const plan = await createPlan(t, tenant, product.id, { prices: [a.id, b.id] });
      const res = await t.http().delete(`/v0/plans/${plan.id}`).set(tenant.auth).expect(200);
      const deletedAt = res.body.deletedAt;
      expect(deletedAt).toMatch(ISO);
      expect(res.body).toEqual({
        ...plan,
        updatedAt: deletedAt,
        deletedAt,
        prices: plan.prices.map((p: any) => ({ ...p, updatedAt: deletedAt, deletedAt })),
      });
      expect((await getPlan(plan.id)).body).toEqual(res.body);
      const price = await getPrice(a.id);
      expect(price.body).toMatchObject({ planId: plan.id, deletedAt });
      // Its prices cannot go into another plan.
      const reuse = await post({
        name: 'Reuse',
        productId: product.id,
        billingInterval: 'monthly',
        prices: [a.id],
      });
      expectErrorEnvelope(reuse, 400, 'validation_error', 'PRICE_DELETED');
    });

    it('answers 200 with the same plan when deleted twice', async () => {
      const plan = await createPlan(t, tenant, product.id);
      const first = await t.http().delete(`/v0/plans/${plan.id}`).set(tenant.auth).expect(200);
      const second = await t.http().delete(`/v0/plans/${plan.id}`).set(tenant.auth).expect(200);
      expect(second.body).toEqual(first.body);
    });

    it('answers 412 for a stale If-Match and deletes with the current one', async () => {
      const plan = await createPlan(t, tenant, product.id);
      const stale = await t
        .http()
        .delete(`/v0/plans/${plan.id}`)
        .set(tenant.auth)
        .set('If-Match', '"old"');
      expectErrorEnvelope(stale, 412, 'precondition_failed');
      expect((await getPlan(plan.id)).body.deletedAt).toBeNull();
      await t
        .http()
        .delete(`/v0/plans/${plan.id}`)
        .set(tenant.auth)
        .set('If-Match', etagOf(plan))
        .expect(200);
    });

    it("answers 404 for another organization's plan and leaves it alone", async () => {
      const theirs = await createPlan(t, other, otherProduct.id);
      const res = await t.http().delete(`/v0/plans/${theirs.id}`).set(tenant.auth);
      expectErrorEnvelope(res, 404, 'not_found');
      expect((await getPlan(theirs.id, other)).body.deletedAt).toBeNull();
    });

    it.each([['plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'], ['x']])('answers 404 for %s', async (id) => {
      expectErrorEnvelope(
        await t.http().delete(`/v0/plans/${id}`).set(tenant.auth),
        404,
        'not_found',
      );
    });
  });

  describe('OpenAPI document', () => {
    let doc: any;
    beforeAll(async () => {
      doc = (await t.http().get('/docs-json').expect(200)).body;
    });

    it("shows the seed's request and response for POST /v0/plans", () => {
      const op = doc.paths['/v0/plans'].post;
      const body = op.requestBody.content['application/json'];
      expect(body.schema.$ref).toMatch(/CreatePlanDto$/);
      expect(body.examples.seed.value).toMatchObject({
        billingInterval: 'monthly',
        currency: 'USD',
        prices: [expect.stringMatching(/^price_/)],
      });
      const created = op.responses['201'];
      expect(created.description).toBe('Plan created successfully');
      const example = created.content['application/json'].example;
      expect(Object.keys(example)).toEqual(PLAN_KEYS);
      expect(example.prices[0]).toMatchObject({
        object: 'price',
        model: 'standard',
        properties: { unitPrice: expect.any(String) },
      });
    });

    it('documents every plan and price route with its responses', () => {
      const routes: [string, string, string[]][] = [
        ['/v0/plans', 'post', ['201', '400', '401', '403', '409']],
        ['/v0/plans', 'get', ['200', '400', '401']],
        ['/v0/plans/{id}', 'get', ['200', '404']],
        ['/v0/plans/{id}', 'patch', ['200', '400', '404', '409', '412']],
        ['/v0/plans/{id}', 'delete', ['200', '404', '412']],
        ['/v0/prices', 'post', ['201', '400']],
        ['/v0/prices', 'get', ['200', '400']],
        ['/v0/prices/{id}', 'get', ['200', '404']],
        ['/v0/prices/{id}', 'patch', ['200', '400', '404', '409', '412']],
        ['/v0/prices/{id}', 'delete', ['204', '404', '409', '412']],
      ];
      for (const [path, method, statuses] of routes) {
        const op = doc.paths[path]?.[method];
        expect({ path, method, documented: Boolean(op) }).toEqual({
          path,
          method,
          documented: true,
        });
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(statuses));
        expect(op.security).toEqual([{ bearer: [] }]);
      }
      const plan = doc.components.schemas.PlanResponse;
      expect(Object.keys(plan.properties)).toEqual(PLAN_KEYS);
      expect(doc.components.schemas.CreatePlanDto.required).toEqual(
        expect.arrayContaining(['name', 'productId', 'billingInterval']),
      );
    });
  });
});
