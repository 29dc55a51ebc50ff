import { etagOf } from '../../src/common/etag';
import { TestApp, TestTenant, expectErrorEnvelope, resourceClient } from '../helpers/test-app';
import { TEST_DIALECT } from '../helpers/test-database';
import {
  ISO_UTC,
  MISSING_METRIC,
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

  const { create, get, patch } = resourceClient(() => t, '/v0/billableMetrics');

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

  describe('PATCH /v0/billableMetrics/:id', () => {
    it('changes name, description and unit and moves updatedAt', async () => {
      const metric = await createMetric(a, productA.id, { description: 'old', eventType: 'e' });
      await new Promise((r) => setTimeout(r, 5));
      const res = await patch(a, metric.id, {
        name: 'Input tokens',
        description: 'new',
        unit: 'tokens',
      }).expect(200);
      expect(res.body).toEqual({
        ...metric,
        name: 'Input tokens',
        description: 'new',
        unit: 'tokens',
        updatedAt: expect.stringMatching(ISO_UTC),
      });
      expect(res.body.updatedAt > metric.updatedAt).toBe(true);
      expect((await get(a, metric.id).expect(200)).body).toEqual(res.body);
    });

    it('removes the description with null or an empty string', async () => {
      const metric = await createMetric(a, productA.id, { description: 'old' });
      expect((await patch(a, metric.id, { description: null }).expect(200)).body.description).toBe(
        null,
      );
      await patch(a, metric.id, { description: 'again' }).expect(200);
      expect((await patch(a, metric.id, { description: '' }).expect(200)).body.description).toBe(
        null,
      );
    });

    it('answers 200 to an empty body and changes nothing, not even updatedAt', async () => {
      const metric = await createMetric(a, productA.id);
      await new Promise((r) => setTimeout(r, 5));
      expect((await patch(a, metric.id, {}).expect(200)).body).toEqual(metric);
      expect((await patch(a, metric.id, { name: metric.name }).expect(200)).body).toEqual(metric);
    });

    it.each([
      ['aggregation', 'MAX'],
      ['aggregation', 'SUM'],
      ['productId', 'OTHER_PRODUCT'],
      ['productId', null],
      ['merchantId', 'SELF'],
      ['valueProperty', '$.other'],
      ['valueProperty', null],
      ['eventType', 'other.event'],
    ])('refuses to change %s (sent as %j) with a 400 naming it', async (field, value) => {
      const metric = await createMetric(a, productA.id);
      const other = (
        await t.http().post('/v0/products').set(a.auth).send({ name: 'Other' }).expect(201)
      ).body;
      const sent =
        value === 'SELF' ? a.organizationId : value === 'OTHER_PRODUCT' ? other.id : value;
      const res = await patch(a, metric.id, { [field]: sent, name: 'Should not stick' });
      expectErrorEnvelope(res, 400, 'validation_error', 'FIELD_NOT_ALLOWED');
      expect(fieldErrors(res)).toEqual({ [field]: 'field_not_allowed' });
      expect(res.body.errors[0].message).toMatch(/never changes.*create a new billable metric/);
      expect((await get(a, metric.id).expect(200)).body).toEqual(metric);
    });

    it.each([
      ['a null name', { name: null }, 'name', 'invalid_type'],
      ['an empty name', { name: '' }, 'name', 'too_short'],
      ['a blank name', { name: '  ' }, 'name', 'blank'],
      ['a name of 201 characters', { name: 'n'.repeat(201) }, 'name', 'too_long'],
      ['a null unit', { unit: null }, 'unit', 'invalid_type'],
      ['a blank unit', { unit: ' ' }, 'unit', 'blank'],
      ['a unit of 201 characters', { unit: 'u'.repeat(201) }, 'unit', 'too_long'],
      ['a numeric unit', { unit: 1 }, 'unit', 'invalid_type'],
      [
        'a description of 2001 characters',
        { description: 'd'.repeat(2001) },
        'description',
        'too_long',
      ],
      ['metadata', { metadata: { a: 1 } }, 'metadata', 'unknown_field'],
      ['an unknown field', { color: 'red' }, 'color', 'unknown_field'],
      ['createdAt', { createdAt: '2026-01-01T00:00:00.000Z' }, 'createdAt', 'field_not_allowed'],
    ])(
      'rejects %s with a 400 naming the field and changes nothing',
      async (_l, body, field, code) => {
        const metric = await createMetric(a, productA.id);
        const res = await patch(a, metric.id, { description: 'Should not stick', ...body });
        expectErrorEnvelope(res, 400, 'validation_error');
        expect(fieldErrors(res)).toEqual({ [field]: code });
        expect((await get(a, metric.id).expect(200)).body).toEqual(metric);
      },
    );

    it("answers 404 for another organization's metric and leaves it unchanged", async () => {
      const theirs = await createMetric(b, productB.id);
      expectErrorEnvelope(await patch(a, theirs.id, { name: 'Mine now' }), 404, 'not_found');
      expectErrorEnvelope(
        await patch(a, theirs.id, { name: 'Mine now' }, etagOf(theirs)),
        404,
        'not_found',
      );
      expect((await get(b, theirs.id).expect(200)).body).toEqual(theirs);
    });

    it('answers 404 for a missing metric', async () => {
      expectErrorEnvelope(await patch(a, MISSING_METRIC, { name: 'x' }), 404, 'not_found');
    });

    it.each(MALFORMED_IDS)('answers 404 for the malformed id %s', async (id) => {
      expectErrorEnvelope(await patch(a, id, { name: 'x' }), 404, 'not_found');
    });

    describe('If-Match', () => {
      it('applies the change when If-Match is the ETag of the current metric', async () => {
        const metric = await createMetric(a, productA.id);
        const read = await get(a, metric.id).expect(200);
        // The ETag is a hash of the representation GET returns (src/common/etag.ts).
        const res = await patch(a, metric.id, { unit: 'tokens' }, etagOf(read.body)).expect(200);
        expect(res.body.unit).toBe('tokens');
      });

      it('answers 412 for a stale ETag and changes nothing', async () => {
        const metric = await createMetric(a, productA.id);
        await new Promise((r) => setTimeout(r, 5));
        const current = (await patch(a, metric.id, { name: 'Changed' }).expect(200)).body;
        const res = await patch(a, metric.id, { name: 'Lost update' }, etagOf(metric));
        expectErrorEnvelope(res, 412, 'precondition_failed', 'ETAG_MISMATCH');
        expect((await get(a, metric.id).expect(200)).body).toEqual(current);
      });

      it('accepts If-Match: *', async () => {
        const metric = await createMetric(a, productA.id);
        await patch(a, metric.id, { name: 'Any' }, '*').expect(200);
      });
    });

    it('loses no update when PATCHes of different fields run at once', async () => {
      const metric = await createMetric(a, productA.id);
      const [r1, r2, r3] = await Promise.all([
        patch(a, metric.id, { name: 'New name' }),
        patch(a, metric.id, { unit: 'new unit' }),
        patch(a, metric.id, { description: 'new description' }),
      ]);
      expect([r1.status, r2.status, r3.status]).toEqual([200, 200, 200]);
      expect((await get(a, metric.id).expect(200)).body).toMatchObject({
        name: 'New name',
        unit: 'new unit',
        description: 'new description',
      });
    });
  });
});
