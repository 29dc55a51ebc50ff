import { createTwoModeTenant, TwoModeTenant } from './modes';
import { TestApp, TestTenant } from './test-app';

let serial = 0;

/** A customer through POST /v0/customers; `externalId` defaults to a fresh one. */
export async function createCustomer(
  t: TestApp,
  tenant: TestTenant,
  body: Record<string, unknown> = {},
): Promise<{ id: string; externalId: string }> {
  const externalId = `ext-${++serial}-${Date.now()}`;
  const res = await t
    .http()
    .post('/v0/customers')
    .set(tenant.auth)
    .send({ name: 'Customer', email: `c${serial}@example.com`, externalId, ...body });
  if (res.status !== 201) throw new Error(`customer: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; externalId: string };
}

/** A product and one billable metric through the API. */
export async function createMetric(
  t: TestApp,
  tenant: TestTenant,
  body: Record<string, unknown>,
): Promise<{ id: string; eventType: string | null }> {
  const product = await t
    .http()
    .post('/v0/products')
    .set(tenant.auth)
    .send({ name: 'Usage' })
    .expect(201);
  const res = await t
    .http()
    .post('/v0/billableMetrics')
    .set(tenant.auth)
    .send({ productId: product.body.id, name: 'Metric', unit: 'unit', ...body });
  if (res.status !== 201) throw new Error(`metric: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; eventType: string | null };
}

export function sendUsage(t: TestApp, tenant: TestTenant, events: Record<string, unknown>[]) {
  return t.http().post('/v0/usageEvents').set(tenant.auth).send({ events });
}

export { createTwoModeTenant, TwoModeTenant };
