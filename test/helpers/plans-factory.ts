import { TestApp, TestTenant } from './test-app';

/** Creates a standard price over HTTP and returns its body; fails the test on anything but 201. */
export async function createPrice(
  t: TestApp,
  tenant: TestTenant,
  billableMetricId: string,
  body: Record<string, unknown> = {},
): Promise<any> {
  const res = await t
    .http()
    .post('/v0/prices')
    .set(tenant.auth)
    .send({
      billableMetricId,
      model: 'standard',
      invoiceDisplayName: 'API calls',
      properties: { unitPrice: '0.25' },
      ...body,
    });
  if (res.status !== 201)
    throw new Error(`price create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Creates a plan over HTTP and returns its body; fails the test on anything but 201. */
export async function createPlan(
  t: TestApp,
  tenant: TestTenant,
  productId: string,
  body: Record<string, unknown> = {},
): Promise<any> {
  const res = await t
    .http()
    .post('/v0/plans')
    .set(tenant.auth)
    .send({ name: 'Pro', productId, billingInterval: 'monthly', ...body });
  if (res.status !== 201) throw new Error(`plan create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
