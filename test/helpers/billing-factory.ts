import { createCatalog } from './catalog-factory';
import { createPlan, createPrice } from './plans-factory';
import { TestApp, TestTenant } from './test-app';

/**
 * A plan over HTTP that prices `metrics` fresh billable metrics of a fresh product (or the
 * metrics given), for the customers, subscriptions and clock suites.
 */
export async function createPricedPlan(
  t: TestApp,
  tenant: TestTenant,
  livemode: boolean,
  body: Record<string, unknown> = {},
  metricIds?: string[],
): Promise<{ plan: any; metricIds: string[]; productId: string }> {
  let productId: string;
  if (!metricIds) {
    const catalog = await createCatalog(t, tenant.organizationId, 1, livemode);
    productId = catalog.product.id;
    metricIds = catalog.metrics.map((m) => m.id);
  } else {
    productId = body.productId as string;
  }
  const prices = [];
  for (const metricId of metricIds) prices.push((await createPrice(t, tenant, metricId)).id);
  const plan = await createPlan(t, tenant, productId, { prices, ...body });
  return { plan, metricIds, productId };
}

/** Creates a customer over HTTP (on a clock with `testClockId`) and returns its body. */
export async function createCustomer(
  t: TestApp,
  tenant: TestTenant,
  body: Record<string, unknown> = {},
): Promise<any> {
  const res = await t
    .http()
    .post('/v0/customers')
    .set(tenant.auth)
    .send({ name: 'Jane', email: 'jane@example.com', ...body });
  if (res.status !== 201) throw new Error(`customer: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Creates a test clock over HTTP and returns its body. */
export async function createClock(t: TestApp, tenant: TestTenant, frozenTime: string) {
  const res = await t.http().post('/v0/testClocks').set(tenant.auth).send({ frozenTime });
  if (res.status !== 201) throw new Error(`clock: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Advances a clock over HTTP; fails on anything but 200. */
export async function advanceClock(t: TestApp, tenant: TestTenant, id: string, frozenTime: string) {
  const res = await t
    .http()
    .post(`/v0/testClocks/${id}/advance`)
    .set(tenant.auth)
    .send({ frozenTime });
  if (res.status !== 200) throw new Error(`advance: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
