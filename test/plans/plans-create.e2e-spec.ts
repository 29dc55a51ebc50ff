import { BillableMetric } from '../../src/catalog/entities/billable-metric.entity';
import { Product } from '../../src/catalog/entities/product.entity';
import { createCatalog } from '../helpers/catalog-factory';
import { createPlan, createPrice } from '../helpers/plans-factory';
import {
  PLAN_KEYS,
  ISO,
  UNKNOWN_PRICE,
  UNKNOWN_PRODUCT,
  fields,
  plansSuite,
} from '../helpers/plans-suite';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope } from '../helpers/test-app';

describe(`plans (${TEST_DIALECT})`, () => {
  const s = plansSuite();
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let product: Product;
  let metrics: BillableMetric[];
  let otherProduct: Product;
  let otherMetrics: BillableMetric[];
  beforeAll(() => ({ t, tenant, other, product, metrics, otherProduct, otherMetrics } = s));
  const { post, getPlan, getPrice, countPlans, priceFor } = s;

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
        livemode: true,
        name: 'Pro',
        invoiceDisplayName: 'Pro plan',
        description: 'Usage-based access to the API',
        billingInterval: 'monthly',
        currency: 'USD',
        merchantId: tenant.organizationId,
        productId: product.id,
        tax: { behavior: 'exclusive', code: 'txcd_10103001', rate: '8.25' },
        fixedFee: null,
        prices: [
          {
            id: price.id,
            object: 'price',
            livemode: true,
            billableMetricId: metrics[0].id,
            model: 'standard',
            invoiceDisplayName: 'API calls',
            properties: { unitPrice: '0.25' },
            paymentTerm: 'in_arrears',
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

    it.each(['EUR', 'JPY', 'GBP', 'XAF', 'XOF', 'XPF', 'XCD'])(
      'accepts currency %s',
      async (currency) => {
        const res = await post({
          name: 'P',
          productId: product.id,
          billingInterval: 'monthly',
          currency,
        }).expect(201);
        expect(res.body.currency).toBe(currency);
      },
    );

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
        [
          'a name of a zero-width space',
          () => ({ ...base(), name: '\u200b' }),
          [{ field: 'name', code: 'blank' }],
        ],
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
        ...[1, true, ['monthly'], { every: 'month' }].map(
          (value): [string, () => Record<string, unknown>, { field: string; code: string }[]] => [
            `billingInterval ${JSON.stringify(value)}, not a string`,
            () => ({ ...base(), billingInterval: value }),
            [{ field: 'billingInterval', code: 'invalid_type' }],
          ],
        ),
        ...[840, true, ['USD']].map(
          (value): [string, () => Record<string, unknown>, { field: string; code: string }[]] => [
            `currency ${JSON.stringify(value)}, not a string`,
            () => ({ ...base(), currency: value }),
            [{ field: 'currency', code: 'invalid_type' }],
          ],
        ),
        [
          'tax behavior 1, not a string',
          () => ({ ...base(), tax: { behavior: 1 } }),
          [{ field: 'tax.behavior', code: 'invalid_type' }],
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
        ...['XXX', 'XTS', 'XAU', 'XPD', 'XBA', 'XDR', 'XSU', 'CHE', 'CLF', 'MXV', 'UYI'].map(
          (
            currency,
          ): [string, () => Record<string, unknown>, { field: string; code: string }[]] => [
            `currency ${currency}, which is not money`,
            () => ({ ...base(), currency }),
            [{ field: 'currency', code: 'invalid_currency' }],
          ],
        ),
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
          [{ field: 'id', code: 'field_not_allowed' }],
        ],
      ])('%s', async (_label, body, expected) => {
        const before = await countPlans();
        const res = await post(body());
        expectErrorEnvelope(res, 400, 'validation_error');
        expect(fields(res)).toEqual(expected);
        expect(await countPlans()).toBe(before);
      });
    });

    it.each([
      ['a JSON number', 8.25],
      ['a number in a string with 5 decimals', '8.12345'],
      ['a string that is no decimal', '1e-5'],
      ['above 100', '100.5'],
    ])(
      "answers a tax rate sent as %s with the tax rate's own rule, not the generic decimal one",
      async (_label, rate) => {
        const res = await post({
          name: 'P',
          productId: product.id,
          billingInterval: 'monthly',
          tax: { rate },
        });
        expectErrorEnvelope(res, 400, 'validation_error');
        expect(res.body.errors).toEqual([
          {
            field: 'tax.rate',
            code: expect.any(String),
            message:
              'must be a percentage from "0" to "100" with at most 4 decimals, as a string such as "8.25"',
          },
        ]);
      },
    );

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
});
