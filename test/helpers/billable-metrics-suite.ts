import { createVia } from './resources';
import { TestApp, TestTenant, startTestApp } from './test-app';

export const METRIC_KEYS = [
  'aggregation',
  'createdAt',
  'description',
  'eventType',
  'id',
  'livemode',
  'merchantId',
  'name',
  'object',
  'productId',
  'unit',
  'updatedAt',
  'valueProperty',
];
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const MISSING_METRIC = 'bm_0000000000000000000000';
export const MISSING_PRODUCT = 'prod_0000000000000000000000';
export const MALFORMED_IDS = [
  'abc',
  'bm_',
  'bm_short',
  'prod_01JD3Y7K2M5N8P1Q4R6S9T0VWX',
  `bm_${'A'.repeat(41)}`,
];

export function fieldErrors(res: { body: any }): Record<string, string> {
  return Object.fromEntries(
    (res.body.errors ?? []).map((e: { field: string; code: string }) => [e.field, e.code]),
  );
}

/** What the billable-metrics suites start with: the app, two organizations, a product each. */
export interface MetricsSuiteStart {
  t: TestApp;
  /** Acme, and its product. */
  a: TestTenant;
  productA: { id: string };
  /** Other Org, and its product. */
  b: TestTenant;
  productB: { id: string };
}

export async function startMetricsSuite(): Promise<MetricsSuiteStart> {
  const t = await startTestApp();
  const a = await t.createTenant('Acme');
  const b = await t.createTenant('Other Org');
  const productA = await createVia(t, a, '/v0/products', { name: 'A' });
  const productB = await createVia(t, b, '/v0/products', { name: 'B' });
  return { t, a, productA, b, productB };
}
