import { TestApp, TestTenant } from './test-app';
import { usAccount } from './external-accounts-factory';

/**
 * What the shared suites need to know of each resource the API serves: where it lives, a create
 * body (built for a tenant, with what it refers to created first), and a PATCH that changes it.
 */
export interface ResourceKind {
  /** As in a test name: "product". */
  name: string;
  /** The collection's path: "/v0/products". */
  path: string;
  /** Creates what the resource refers to and returns a valid create body. */
  createBody(t: TestApp, tenant: TestTenant): Promise<Record<string, unknown>>;
  /** A PATCH body that changes the resource. */
  change: Record<string, unknown>;
  /** Whether DELETE exists on it. */
  deletable: boolean;
  /** The resource in event types: `billableMetric` for `billableMetric.created`. */
  event: string;
}

/** POSTs `body` to `path` as `tenant` and returns the created resource (fails on a non-201). */
export async function createVia(
  t: TestApp,
  tenant: TestTenant,
  path: string,
  body: Record<string, unknown>,
): Promise<any> {
  const res = await t.http().post(path).set(tenant.auth).send(body);
  if (res.status !== 201)
    throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function product(t: TestApp, tenant: TestTenant): Promise<any> {
  return createVia(t, tenant, '/v0/products', { name: 'API access' });
}

async function metric(t: TestApp, tenant: TestTenant): Promise<any> {
  const { id: productId } = await product(t, tenant);
  return createVia(t, tenant, '/v0/billableMetrics', {
    productId,
    name: 'API calls',
    unit: 'call',
    aggregation: 'COUNT',
  });
}

/** Every resource of the API, for the suites of the promises they all keep. */
export const RESOURCES: ResourceKind[] = [
  {
    name: 'product',
    path: '/v0/products',
    createBody: () => Promise.resolve({ name: 'API access' }),
    change: { name: 'Renamed' },
    deletable: false,
    event: 'product',
  },
  {
    name: 'billable metric',
    path: '/v0/billableMetrics',
    async createBody(t, tenant) {
      const { id: productId } = await product(t, tenant);
      return { productId, name: 'API calls', unit: 'call', aggregation: 'COUNT' };
    },
    change: { name: 'Renamed' },
    deletable: false,
    event: 'billableMetric',
  },
  {
    name: 'price',
    path: '/v0/prices',
    async createBody(t, tenant) {
      const { id: billableMetricId } = await metric(t, tenant);
      return {
        billableMetricId,
        model: 'standard',
        invoiceDisplayName: 'API calls',
        properties: { unitPrice: '0.25' },
      };
    },
    change: { invoiceDisplayName: 'Renamed' },
    deletable: true,
    event: 'price',
  },
  {
    name: 'plan',
    path: '/v0/plans',
    async createBody(t, tenant) {
      const { id: productId } = await product(t, tenant);
      return { name: 'Pro', productId, billingInterval: 'monthly' };
    },
    change: { name: 'Renamed' },
    deletable: true,
    event: 'plan',
  },
  {
    name: 'external bank account',
    path: '/v0/externalAccounts',
    createBody: () => Promise.resolve(usAccount()),
    change: { accountHolderName: 'Someone Else' },
    deletable: true,
    event: 'externalBankAccount',
  },
  {
    name: 'customer',
    path: '/v0/customers',
    createBody: () => Promise.resolve({ name: 'Jane Cooper', email: 'jane@example.com' }),
    change: { name: 'Renamed' },
    deletable: true,
    event: 'customer',
  },
  {
    name: 'subscription',
    path: '/v0/subscriptions',
    async createBody(t, tenant) {
      const { id: customerId } = await createVia(t, tenant, '/v0/customers', {
        name: 'Jane Cooper',
        email: 'jane@example.com',
      });
      const { id: productId } = await product(t, tenant);
      const { id: planId } = await createVia(t, tenant, '/v0/plans', {
        name: 'Pro',
        productId,
        billingInterval: 'monthly',
      });
      return { customerId, planId };
    },
    change: { metadata: { seats: 12 } },
    deletable: false,
    event: 'subscription',
  },
  {
    name: 'webhook endpoint',
    path: '/v0/webhookEndpoints',
    // A public address written as one (nothing to resolve), subscribed to an event these suites
    // never cause, so that no delivery is attempted.
    createBody: () =>
      Promise.resolve({ url: 'https://93.184.216.34/hooks', enabledEvents: ['plan.deleted'] }),
    change: { description: 'Renamed' },
    deletable: true,
    event: 'webhookEndpoint',
  },
];

/**
 * Creates one resource of the kind named (and what it refers to first) as `tenant`, over HTTP,
 * and returns its body: `await createResource(t, tenant, 'price')`.
 */
export async function createResource(t: TestApp, tenant: TestTenant, name: string): Promise<any> {
  const kind = RESOURCES.find((r) => r.name === name);
  if (!kind) throw new Error(`no resource named ${name}`);
  return createVia(t, tenant, kind.path, await kind.createBody(t, tenant));
}
