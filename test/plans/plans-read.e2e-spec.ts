import { IsNull } from 'typeorm';
import { Product } from '../../src/catalog/entities/product.entity';
import { Plan } from '../../src/plans/entities/plan.entity';
import { createCatalog, createProduct } from '../helpers/catalog-factory';
import { createPlan, createPrice } from '../helpers/plans-factory';
import { PLAN_KEYS, ISO, plansSuite } from '../helpers/plans-suite';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope } from '../helpers/test-app';

describe(`plans (${TEST_DIALECT})`, () => {
  const s = plansSuite();
  let t: TestApp;
  let other: TestTenant;
  let otherProduct: Product;
  beforeAll(() => ({ t, other, otherProduct } = s));
  const { post, getPlan } = s;

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
