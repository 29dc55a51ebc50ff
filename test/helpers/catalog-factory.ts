import { BillableMetric } from '../../src/catalog/entities/billable-metric.entity';
import { Product } from '../../src/catalog/entities/product.entity';
import { ID_PREFIXES, newId } from '../../src/common/ids';
import { TestApp } from './test-app';

/**
 * Products and billable metrics for the plans suites, inserted straight into the database while
 * the catalog routes are built elsewhere. (Once they exist, these may go through POST
 * /v0/products and POST /v0/billableMetrics instead.)
 */
export async function createProduct(
  t: TestApp,
  organizationId: string,
  overrides: Partial<Product> = {},
): Promise<Product> {
  const now = new Date();
  const product: Product = {
    id: newId(ID_PREFIXES.product),
    organizationId,
    livemode: true,
    name: 'API access',
    description: null,
    metadata: {},
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
  await t.db.transaction((m) => m.insert(Product, product));
  return product;
}

export async function createBillableMetric(
  t: TestApp,
  organizationId: string,
  productId: string,
  overrides: Partial<BillableMetric> = {},
): Promise<BillableMetric> {
  const now = new Date();
  const metric: BillableMetric = {
    id: newId(ID_PREFIXES.billableMetric),
    organizationId,
    livemode: true,
    productId,
    name: 'API calls',
    description: null,
    unit: 'call',
    aggregation: 'COUNT',
    valueProperty: null,
    eventType: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
  await t.db.transaction((m) => m.insert(BillableMetric, metric));
  return metric;
}

/** A product with `metricCount` billable metrics of its own. */
export async function createCatalog(
  t: TestApp,
  organizationId: string,
  metricCount = 2,
  livemode = true,
): Promise<{ product: Product; metrics: BillableMetric[] }> {
  const product = await createProduct(t, organizationId, { livemode });
  const metrics: BillableMetric[] = [];
  for (let i = 0; i < metricCount; i++) {
    metrics.push(
      await createBillableMetric(t, organizationId, product.id, {
        name: `Metric ${i + 1}`,
        livemode,
      }),
    );
  }
  return { product, metrics };
}
