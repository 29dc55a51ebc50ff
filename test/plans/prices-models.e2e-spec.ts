import { BillableMetric } from '../../src/catalog/entities/billable-metric.entity';
import { Price } from '../../src/plans/entities/price.entity';
import { createCatalog } from '../helpers/catalog-factory';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

/** The models added for invoices (docs/api.md §5.3): package, graduated, percentage; paymentTerm. */
describe(`prices of the package, graduated and percentage models (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let metric: BillableMetric;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant('Acme');
    ({
      metrics: [metric],
    } = await createCatalog(t, tenant.organizationId, 1));
  });
  afterAll(() => t.close());

  const post = (model: string, properties: unknown, extra: Record<string, unknown> = {}) =>
    t
      .http()
      .post('/v0/prices')
      .set(tenant.auth)
      .send({
        billableMetricId: metric.id,
        model,
        invoiceDisplayName: 'Usage',
        properties,
        ...extra,
      });
  const countPrices = () =>
    t.db.read((m) => m.count(Price, { where: { organizationId: tenant.organizationId } }));

  it.each<[string, unknown, unknown]>([
    [
      'package',
      { packageSize: '1000', packagePrice: '5.00' },
      { packageSize: '1000', packagePrice: '5.00' },
    ],
    [
      'graduated',
      {
        tiers: [
          { unitPrice: '0.10', upTo: '100', flatPrice: '1' },
          { upTo: '1000.5', unitPrice: '0.05' },
          { upTo: null, unitPrice: '0.000000000001', flatPrice: '0' },
        ],
      },
      {
        tiers: [
          { upTo: '100', unitPrice: '0.10', flatPrice: '1' },
          { upTo: '1000.5', unitPrice: '0.05', flatPrice: '0' },
          { upTo: null, unitPrice: '0.000000000001', flatPrice: '0' },
        ],
      },
    ],
    [
      'percentage',
      { maxCharge: '100', percentage: '0.0290', minCharge: '0.30' },
      { percentage: '0.0290', minCharge: '0.30', maxCharge: '100' },
    ],
  ])(
    'creates a %s price and shows its properties exactly, flatPrice always',
    async (model, sent, shown) => {
      const res = await post(model, sent).expect(201);
      expect(res.body).toMatchObject({ model, paymentTerm: 'in_arrears' });
      expect(JSON.stringify(res.body.properties)).toBe(JSON.stringify(shown));
      const got = await t.http().get(`/v0/prices/${res.body.id}`).set(tenant.auth).expect(200);
      expect(JSON.stringify(got.body.properties)).toBe(JSON.stringify(shown));
      expect(got.body.paymentTerm).toBe('in_arrears');
    },
  );

  const tiers = (...list: unknown[]) => ({ tiers: list });
  const twentyOne = Array.from({ length: 21 }, (_, i) => ({
    upTo: i === 20 ? null : String(i + 1),
    unitPrice: '1',
  }));

  it.each<[string, string, unknown, { field: string; code: string }[]]>([
    [
      'a package size of 0',
      'package',
      { packageSize: '0', packagePrice: '1' },
      [{ field: 'properties.packageSize', code: 'invalid_range' }],
    ],
    [
      'a numeric package price',
      'package',
      { packageSize: '10', packagePrice: 1 },
      [{ field: 'properties.packagePrice', code: 'invalid_decimal' }],
    ],
    [
      'an extra package key',
      'package',
      { packageSize: '10', packagePrice: '1', unitPrice: '1' },
      [{ field: 'properties.unitPrice', code: 'unknown_field' }],
    ],
    ['no tiers', 'graduated', tiers(), [{ field: 'properties.tiers', code: 'invalid_length' }]],
    [
      '21 tiers',
      'graduated',
      { tiers: twentyOne },
      [{ field: 'properties.tiers', code: 'invalid_length' }],
    ],
    [
      'tiers as an object',
      'graduated',
      { tiers: {} },
      [{ field: 'properties.tiers', code: 'invalid_type' }],
    ],
    [
      'a last tier with an upTo',
      'graduated',
      tiers({ upTo: '10', unitPrice: '1' }),
      [{ field: 'properties.tiers[0].upTo', code: 'invalid_value' }],
    ],
    [
      'a null upTo on a middle tier',
      'graduated',
      tiers(
        { upTo: '1', unitPrice: '1' },
        { upTo: null, unitPrice: '1' },
        { upTo: null, unitPrice: '1' },
      ),
      [{ field: 'properties.tiers[1].upTo', code: 'invalid_value' }],
    ],
    [
      'upTo not strictly increasing',
      'graduated',
      tiers(
        { upTo: '10', unitPrice: '1' },
        { upTo: '9.99', unitPrice: '1' },
        { upTo: null, unitPrice: '1' },
      ),
      [{ field: 'properties.tiers[1].upTo', code: 'invalid_range' }],
    ],
    [
      'a negative flat price',
      'graduated',
      tiers({ upTo: null, unitPrice: '1', flatPrice: '-1' }),
      [{ field: 'properties.tiers[0].flatPrice', code: 'invalid_decimal' }],
    ],
    [
      'an unknown tier key',
      'graduated',
      tiers({ upTo: null, unitPrice: '1', from: '0' }),
      [{ field: 'properties.tiers[0].from', code: 'unknown_field' }],
    ],
    [
      'a percentage above 10',
      'percentage',
      { percentage: '11', minCharge: '0', maxCharge: '1' },
      [{ field: 'properties.percentage', code: 'invalid_range' }],
    ],
    [
      'a percentage with 5 decimals',
      'percentage',
      { percentage: '0.00005', minCharge: '0', maxCharge: '1' },
      [{ field: 'properties.percentage', code: 'invalid_range' }],
    ],
    [
      'minCharge above maxCharge',
      'percentage',
      { percentage: '0.03', minCharge: '5', maxCharge: '4.99' },
      [{ field: 'properties.minCharge', code: 'invalid_range' }],
    ],
    [
      'a huge minCharge',
      'percentage',
      { percentage: '0.03', minCharge: '1234567890123456789', maxCharge: '1' },
      [{ field: 'properties.minCharge', code: 'invalid_decimal' }],
    ],
  ])(
    'rejects %s with a 400 naming the field, storing nothing',
    async (_label, model, properties, errors) => {
      const before = await countPrices();
      const res = await post(model, properties);
      expectErrorEnvelope(res, 400, 'validation_error', errors[0].code.toUpperCase());
      expect(
        res.body.errors.map(({ field, code }: { field: string; code: string }) => ({
          field,
          code,
        })),
      ).toEqual(errors);
      expect(await countPrices()).toBe(before);
    },
  );

  describe('paymentTerm', () => {
    it('accepts "in_arrears" on create and on PATCH', async () => {
      const res = await post('standard', { unitPrice: '1' }, { paymentTerm: 'in_arrears' }).expect(
        201,
      );
      expect(res.body.paymentTerm).toBe('in_arrears');
      const patched = await t
        .http()
        .patch(`/v0/prices/${res.body.id}`)
        .set(tenant.auth)
        .send({ paymentTerm: 'in_arrears' })
        .expect(200);
      expect(patched.body.paymentTerm).toBe('in_arrears');
      expect(patched.body.updatedAt).toBe(res.body.updatedAt);
    });

    it.each<[unknown, string]>([
      ['in_advance', 'invalid_value'],
      ['IN_ARREARS', 'invalid_value'],
      [1, 'invalid_type'],
      [null, 'invalid_type'],
    ])('rejects %p on create and on PATCH', async (paymentTerm, code) => {
      const before = await countPrices();
      const res = await post('standard', { unitPrice: '1' }, { paymentTerm });
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors).toEqual([
        { field: 'paymentTerm', code, message: expect.any(String) },
      ]);
      expect(await countPrices()).toBe(before);
      const created = await post('standard', { unitPrice: '1' }).expect(201);
      const patched = await t
        .http()
        .patch(`/v0/prices/${created.body.id}`)
        .set(tenant.auth)
        .send({ paymentTerm });
      expectErrorEnvelope(patched, 400, 'validation_error');
      expect(patched.body.errors).toEqual([
        { field: 'paymentTerm', code, message: expect.any(String) },
      ]);
    });
  });

  it('validates a PATCH of properties against the price model', async () => {
    const res = await post('graduated', tiers({ upTo: null, unitPrice: '1' })).expect(201);
    const bad = await t
      .http()
      .patch(`/v0/prices/${res.body.id}`)
      .set(tenant.auth)
      .send({ properties: tiers({ upTo: '5', unitPrice: '1' }) });
    expectErrorEnvelope(bad, 400, 'validation_error', 'INVALID_VALUE');
    const good = await t
      .http()
      .patch(`/v0/prices/${res.body.id}`)
      .set(tenant.auth)
      .send({
        properties: tiers(
          { upTo: '5', unitPrice: '1' },
          { upTo: null, unitPrice: '0.5', flatPrice: '2' },
        ),
      })
      .expect(200);
    expect(good.body.properties).toEqual(
      tiers(
        { upTo: '5', unitPrice: '1', flatPrice: '0' },
        { upTo: null, unitPrice: '0.5', flatPrice: '2' },
      ),
    );
  });
});
