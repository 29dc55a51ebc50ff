import { BillableMetric } from '../../src/catalog/entities/billable-metric.entity';
import { Product } from '../../src/catalog/entities/product.entity';
import { Plan } from '../../src/plans/entities/plan.entity';
import { createCatalog } from './catalog-factory';
import { createPrice } from './plans-factory';
import { TestApp, TestTenant, startTestApp } from './test-app';

export const PLAN_KEYS = [
  'id',
  'object',
  'livemode',
  'name',
  'invoiceDisplayName',
  'description',
  'billingInterval',
  'currency',
  'merchantId',
  'productId',
  'tax',
  'fixedFee',
  'prices',
  'createdAt',
  'updatedAt',
  'deletedAt',
];

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UNKNOWN_PRICE = 'price_01JD3Y2Q6J8C4N1V9W5X7Z0ABC';
export const UNKNOWN_PRODUCT = 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC';

export const fields = (res: { body: any }) =>
  res.body.errors.map(({ field, code }: { field: string; code: string }) => ({ field, code }));

/** What every plans suite starts with: an app, two tenants with a catalog each, and shortcuts. */
export interface PlansSuite {
  t: TestApp;
  tenant: TestTenant;
  other: TestTenant;
  product: Product;
  metrics: BillableMetric[];
  otherProduct: Product;
  otherMetrics: BillableMetric[];
  post: (body: unknown, who?: TestTenant) => ReturnType<ReturnType<TestApp['http']>['post']>;
  patch: (
    id: string,
    body: unknown,
    who?: TestTenant,
  ) => ReturnType<ReturnType<TestApp['http']>['patch']>;
  getPlan: (id: string, who?: TestTenant) => ReturnType<ReturnType<TestApp['http']>['get']>;
  getPrice: (id: string, who?: TestTenant) => ReturnType<ReturnType<TestApp['http']>['get']>;
  countPlans: () => Promise<number>;
  priceFor: (metric: BillableMetric, body?: Record<string, unknown>) => Promise<any>;
}

/**
 * Registers the suite's beforeAll/afterAll (call it inside the top describe) and returns the
 * suite, whose fields are set once beforeAll has run.
 */
export function plansSuite(): PlansSuite {
  const s = {} as PlansSuite;
  beforeAll(async () => {
    s.t = await startTestApp();
    s.tenant = await s.t.createTenant('Acme');
    s.other = await s.t.createTenant('Other');
    ({ product: s.product, metrics: s.metrics } = await createCatalog(
      s.t,
      s.tenant.organizationId,
      4,
    ));
    ({ product: s.otherProduct, metrics: s.otherMetrics } = await createCatalog(
      s.t,
      s.other.organizationId,
      1,
    ));
  });
  afterAll(() => s.t.close());

  s.post = (body, who = s.tenant) =>
    s.t
      .http()
      .post('/v0/plans')
      .set(who.auth)
      .send(body as object);
  s.patch = (id, body, who = s.tenant) =>
    s.t
      .http()
      .patch(`/v0/plans/${id}`)
      .set(who.auth)
      .send(body as object);
  s.getPlan = (id, who = s.tenant) => s.t.http().get(`/v0/plans/${id}`).set(who.auth);
  s.getPrice = (id, who = s.tenant) => s.t.http().get(`/v0/prices/${id}`).set(who.auth);
  s.countPlans = () =>
    s.t.db.read((m) => m.count(Plan, { where: { organizationId: s.tenant.organizationId } }));
  s.priceFor = (metric, body = {}) => createPrice(s.t, s.tenant, metric.id, body);
  return s;
}
