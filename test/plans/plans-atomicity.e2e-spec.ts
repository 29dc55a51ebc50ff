import { BillableMetric } from '../../src/catalog/entities/billable-metric.entity';
import { Product } from '../../src/catalog/entities/product.entity';
import { etagOf } from '../../src/common/etag';
import { Plan } from '../../src/plans/entities/plan.entity';
import { createCatalog } from '../helpers/catalog-factory';
import { createPlan, createPrice } from '../helpers/plans-factory';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

describe(`plans: atomicity and concurrency (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let product: Product;
  let metrics: BillableMetric[];

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant('Acme');
    ({ product, metrics } = await createCatalog(t, tenant.organizationId, 5));
  });
  afterAll(() => t.close());

  const post = (body: Record<string, unknown>) =>
    t
      .http()
      .post('/v0/plans')
      .set(tenant.auth)
      .send({ name: 'Pro', productId: product.id, billingInterval: 'monthly', ...body });
  const patch = (id: string, body: Record<string, unknown>) =>
    t.http().patch(`/v0/plans/${id}`).set(tenant.auth).send(body);
  const getPrice = async (id: string) =>
    (await t.http().get(`/v0/prices/${id}`).set(tenant.auth).expect(200)).body;
  const getPlan = async (id: string) =>
    (await t.http().get(`/v0/plans/${id}`).set(tenant.auth).expect(200)).body;
  const plansNamed = (name: string) =>
    t.db.read((m) => m.count(Plan, { where: { organizationId: tenant.organizationId, name } }));
  const freshPrices = async (n: number) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push(await createPrice(t, tenant, metrics[i].id));
    return out;
  };

  /**
   * Makes the database itself refuse to attach one price (a trigger), so a write fails after
   * the plan row and the other prices were already written in the same transaction.
   */
  async function failAttachOf(priceId: string): Promise<() => Promise<void>> {
    await t.db.transaction(async (m) => {
      if (t.database.dialect === 'postgres') {
        await m.query(`
          CREATE OR REPLACE FUNCTION injected_failure() RETURNS trigger AS $$
          BEGIN RAISE EXCEPTION 'injected failure'; END $$ LANGUAGE plpgsql`);
        await m.query(`
          CREATE TRIGGER fail_attach BEFORE UPDATE ON prices FOR EACH ROW
          WHEN (NEW.id = '${priceId}' AND NEW.plan_id IS DISTINCT FROM OLD.plan_id)
          EXECUTE FUNCTION injected_failure()`);
      } else {
        await m.query(`
          CREATE TRIGGER fail_attach BEFORE UPDATE OF plan_id ON prices
          WHEN NEW.id = '${priceId}' AND NEW.plan_id IS NOT OLD.plan_id
          BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
      }
    });
    return () =>
      t.db.transaction(async (m) => {
        await m.query(
          t.database.dialect === 'postgres'
            ? 'DROP TRIGGER fail_attach ON prices'
            : 'DROP TRIGGER fail_attach',
        );
      });
  }

  describe('a failed create leaves no plan and no price changed', () => {
    it('when the LAST price is in another plan (409)', async () => {
      const [a, b, c, d] = await freshPrices(4);
      const holder = await createPlan(t, tenant, product.id, { name: 'Holder', prices: [d.id] });
      const res = await post({ name: 'Atomic 409', prices: [a.id, b.id, c.id, d.id] });
      expectErrorEnvelope(res, 409, 'conflict', 'PRICE_IN_USE');
      expect(res.body.errors.map((e: any) => e.field)).toEqual(['prices[3]']);
      expect(await plansNamed('Atomic 409')).toBe(0);
      for (const p of [a, b, c]) expect(await getPrice(p.id)).toEqual(p);
      expect((await getPrice(d.id)).planId).toBe(holder.id);
    });

    it('when the LAST price is for a metric of another product (400)', async () => {
      const [a, b] = await freshPrices(2);
      const foreign = await createCatalog(t, tenant.organizationId, 1);
      const c = await createPrice(t, tenant, foreign.metrics[0].id);
      const res = await post({ name: 'Atomic 400', prices: [a.id, b.id, c.id] });
      expectErrorEnvelope(res, 400, 'validation_error', 'BILLABLE_METRIC_NOT_IN_PRODUCT');
      expect(await plansNamed('Atomic 400')).toBe(0);
      for (const p of [a, b, c]) expect(await getPrice(p.id)).toEqual(p);
    });

    it('when the database fails while attaching the LAST price (500)', async () => {
      const [a, b, c] = await freshPrices(3);
      const restore = await failAttachOf(c.id);
      try {
        const res = await post({ name: 'Atomic 500', prices: [a.id, b.id, c.id] });
        expectErrorEnvelope(res, 500, 'internal_error');
        expect(JSON.stringify(res.body)).not.toMatch(/injected|trigger|UPDATE/);
      } finally {
        await restore();
      }
      expect(await plansNamed('Atomic 500')).toBe(0);
      for (const p of [a, b, c]) expect(await getPrice(p.id)).toEqual(p);
      // Nothing is left half-done: the same request now succeeds.
      const ok = await post({ name: 'Atomic 500', prices: [a.id, b.id, c.id] }).expect(201);
      expect(ok.body.prices.map((p: any) => p.planId)).toEqual([
        ok.body.id,
        ok.body.id,
        ok.body.id,
      ]);
    });
  });

  describe('a failed update leaves the old plan and price list intact', () => {
    it('when a new price is in another plan (409)', async () => {
      const [a, b, c, d] = await freshPrices(4);
      const plan = await createPlan(t, tenant, product.id, { prices: [a.id, b.id] });
      await createPlan(t, tenant, product.id, { name: 'Holder', prices: [d.id] });
      const res = await patch(plan.id, { name: 'Renamed', prices: [c.id, d.id] });
      expectErrorEnvelope(res, 409, 'conflict', 'PRICE_IN_USE');
      expect(await getPlan(plan.id)).toEqual(plan);
      expect(await getPrice(c.id)).toEqual(c);
    });

    it('when the database fails after the dropped prices were freed (500)', async () => {
      const [a, b, c] = await freshPrices(3);
      const plan = await createPlan(t, tenant, product.id, { prices: [a.id, b.id] });
      const restore = await failAttachOf(c.id);
      try {
        const res = await patch(plan.id, { name: 'Renamed', prices: [c.id] });
        expectErrorEnvelope(res, 500, 'internal_error');
      } finally {
        await restore();
      }
      expect(await getPlan(plan.id)).toEqual(plan);
      expect(await getPrice(c.id)).toEqual(c);
    });
  });

  describe('concurrency', () => {
    it('lets exactly one of 10 concurrent creates take a free price; the rest get 409', async () => {
      const [price] = await freshPrices(1);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          post({ name: 'Race', invoiceDisplayName: `Racer ${i}`, prices: [price.id] }),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
      for (const r of results.filter((x) => x.status === 409)) {
        expectErrorEnvelope(r, 409, 'conflict', 'PRICE_IN_USE');
        expect(r.body.errors.map((e: any) => e.field)).toEqual(['prices[0]']);
      }
      const winner = results.find((r) => r.status === 201)!.body;
      expect((await getPrice(price.id)).planId).toBe(winner.id);
      expect(await plansNamed('Race')).toBe(1);
      expect(await getPlan(winner.id)).toEqual(winner);
    });

    it('lets exactly one of several concurrent updates take a free price', async () => {
      const [price] = await freshPrices(1);
      const plans = [];
      for (let i = 0; i < 5; i++) plans.push(await createPlan(t, tenant, product.id));
      const results = await Promise.all(plans.map((p) => patch(p.id, { prices: [price.id] })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
      const winner = results.find((r) => r.status === 200)!.body;
      expect((await getPrice(price.id)).planId).toBe(winner.id);
      for (const p of plans.filter((x) => x.id !== winner.id)) {
        expect((await getPlan(p.id)).prices).toEqual([]);
      }
    });

    it('never lets a plan take a price that is being deleted', async () => {
      for (let round = 0; round < 5; round++) {
        const [price] = await freshPrices(1);
        const [created, deleted] = await Promise.all([
          post({ name: `Versus ${round}`, prices: [price.id] }),
          t.http().delete(`/v0/prices/${price.id}`).set(tenant.auth),
        ]);
        const after = await getPrice(price.id);
        if (created.status === 201) {
          expect(deleted.status).toBe(409);
          expect(after).toMatchObject({ planId: created.body.id, deletedAt: null });
        } else {
          expect([400, 409]).toContain(created.status);
          expect(deleted.status).toBe(204);
          expect(after.planId).toBeNull();
          expect(after.deletedAt).not.toBeNull();
          expect(await plansNamed(`Versus ${round}`)).toBe(0);
        }
      }
    });

    it('lets only one of several PATCHes with the same If-Match win', async () => {
      const plan = await createPlan(t, tenant, product.id);
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          t
            .http()
            .patch(`/v0/plans/${plan.id}`)
            .set(tenant.auth)
            .set('If-Match', etagOf(plan))
            .send({ name: `Writer ${i}` }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412, 412, 412]);
      const winner = results.find((r) => r.status === 200)!.body;
      expect(await getPlan(plan.id)).toEqual(winner);
    });

    it('keeps concurrent PATCHes of different fields of one plan', async () => {
      const plan = await createPlan(t, tenant, product.id, { tax: { rate: '1' } });
      const bodies = [
        { name: 'N' },
        { description: 'D' },
        { billingInterval: 'yearly' },
        { tax: { code: 'C' } },
        { tax: { behavior: 'inclusive' } },
      ];
      const results = await Promise.all(bodies.map((b) => patch(plan.id, b)));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(await getPlan(plan.id)).toMatchObject({
        name: 'N',
        description: 'D',
        billingInterval: 'yearly',
        tax: { behavior: 'inclusive', code: 'C', rate: '1' },
      });
    });
  });
});
