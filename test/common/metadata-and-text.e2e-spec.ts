import { createProduct } from '../helpers/catalog-factory';
import { createPlan } from '../helpers/plans-factory';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

/**
 * Issue 17, finding 7: a metadata number comes back exactly as sent or is refused; lengths
 * count characters (Unicode code points) everywhere; an empty description means none (null) on
 * plans as on products and billable metrics.
 */
describe(`metadata numbers, lengths and empty descriptions on ${TEST_DIALECT}`, () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  /** POSTs a product with `metadata` written as raw JSON text, so no client rounds it first. */
  const postRaw = (metadataJson: string) =>
    t
      .http()
      .post('/v0/products')
      .set(tenant.auth)
      .set('Content-Type', 'application/json')
      .send(`{"name":"Raw","metadata":${metadataJson}}`);

  describe('metadata numbers', () => {
    it.each([
      ['a 23-digit integer', '12345678901234567890123'],
      ['2^53 + 1', '9007199254740993'],
      ['2^53', '9007199254740992'],
      ['-(2^53)', '-9007199254740992'],
      ['a decimal JSON.parse rounds', '0.10000000000000000001'],
      ['a number too small for a double', '1e-400'],
    ])('refuses %s with a 400 naming the field', async (_label, number) => {
      const res = await postRaw(`{"n":${number}}`);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors).toEqual([
        expect.objectContaining({ field: 'metadata', message: expect.stringContaining('"n"') }),
      ]);
    });

    it('refuses one on PATCH too, and changes nothing', async () => {
      const created = await postRaw('{"n":1}').expect(201);
      const res = await t
        .http()
        .patch(`/v0/products/${created.body.id}`)
        .set(tenant.auth)
        .set('Content-Type', 'application/json')
        .send('{"metadata":{"n":12345678901234567890123}}');
      expectErrorEnvelope(res, 400, 'validation_error');
      const read = await t.http().get(`/v0/products/${created.body.id}`).set(tenant.auth);
      expect(read.body.metadata).toEqual({ n: 1 });
    });

    it.each([
      ['the largest safe integer', '9007199254740991', 9007199254740991],
      ['the smallest safe integer', '-9007199254740991', -9007199254740991],
      ['a short decimal', '0.25', 0.25],
      ['an exponent that is exact', '1.5e3', 1500],
      ['sixteen significant digits that survive', '0.1000000000000001', 0.1000000000000001],
    ])('keeps %s exactly', async (_label, number, value) => {
      const res = await postRaw(`{"n":${number}}`);
      expect(res.status).toBe(201);
      expect(res.body.metadata).toEqual({ n: value });
      const read = await t.http().get(`/v0/products/${res.body.id}`).set(tenant.auth);
      expect(read.body.metadata).toEqual({ n: value });
    });

    it('leaves long digit strings alone', async () => {
      const res = await postRaw('{"n":"12345678901234567890123"}');
      expect(res.status).toBe(201);
      expect(res.body.metadata).toEqual({ n: '12345678901234567890123' });
    });
  });

  describe('metadata lengths count characters', () => {
    const emoji = '\u{1F600}'; // one character, two UTF-16 units

    it('takes a 40-character key and a 500-character value of astral characters', async () => {
      const metadata = { [emoji.repeat(40)]: emoji.repeat(500) };
      const res = await t
        .http()
        .post('/v0/products')
        .set(tenant.auth)
        .send({ name: 'Emoji', metadata });
      expect(res.status).toBe(201);
      expect(res.body.metadata).toEqual(metadata);
    });

    it.each([
      ['a 41-character key', { [emoji.repeat(41)]: 'x' }],
      ['a 501-character value', { k: emoji.repeat(501) }],
    ])('refuses %s', async (_label, metadata) => {
      const res = await t
        .http()
        .post('/v0/products')
        .set(tenant.auth)
        .send({ name: 'Emoji', metadata });
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors[0].field).toBe('metadata');
    });
  });

  describe('an empty plan description', () => {
    it('is stored and answered as null on create, as products and metrics do', async () => {
      const product = await createProduct(t, tenant.organizationId);
      const plan = await createPlan(t, tenant, product.id, { description: '' });
      expect(plan.description).toBeNull();
      const read = await t.http().get(`/v0/plans/${plan.id}`).set(tenant.auth);
      expect(read.body.description).toBeNull();
      const productRes = await t
        .http()
        .post('/v0/products')
        .set(tenant.auth)
        .send({ name: 'Empty description', description: '' });
      expect(productRes.body.description).toBeNull();
    });

    it('clears the description on PATCH', async () => {
      const product = await createProduct(t, tenant.organizationId);
      const plan = await createPlan(t, tenant, product.id, { description: 'Old' });
      const res = await t
        .http()
        .patch(`/v0/plans/${plan.id}`)
        .set(tenant.auth)
        .send({ description: '' });
      expect(res.status).toBe(200);
      expect(res.body.description).toBeNull();
      const read = await t.http().get(`/v0/plans/${plan.id}`).set(tenant.auth);
      expect(read.body.description).toBeNull();
    });
  });
});
