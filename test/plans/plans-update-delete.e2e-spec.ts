import { BillableMetric } from '../../src/catalog/entities/billable-metric.entity';
import { Product } from '../../src/catalog/entities/product.entity';
import { etagOf } from '../../src/common/etag';
import { createPlan, createPrice } from '../helpers/plans-factory';
import { ISO, UNKNOWN_PRICE, fields, plansSuite } from '../helpers/plans-suite';
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
  const { post, patch, getPlan, getPrice, priceFor } = s;

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
      ['an unknown field', { colour: 'red' }, 'colour', 'unknown_field'],
      ['deletedAt (set by DELETE)', { deletedAt: null }, 'deletedAt', 'field_not_allowed'],
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
});
