import { Writable } from 'node:stream';
import { CreateAppOptions } from '../../../src/app.setup';
import { uniqueDigits } from '../external-accounts-factory';
import { createDraftInvoice } from '../invoices-factory';
import { TestApp, TestTenant, startTestApp } from '../test-app';
import { HttpClient, Reply } from './http';

/** The real app (startTestApp) listening on a loopback port, with a client that keeps a journal. */
export interface ListeningApp {
  t: TestApp;
  client: HttpClient;
  /** Every log line the app wrote (LOG_LEVEL info). */
  logs: string[];
}

export async function startListeningApp(
  env: Record<string, string> = {},
  options: CreateAppOptions = {},
): Promise<ListeningApp> {
  const logs: string[] = [];
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const t = await startTestApp({ LOG_LEVEL: 'info', ...env }, { logDestination, ...options });
  await t.app.listen(0, '127.0.0.1');
  const address = t.app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { t, client: new HttpClient(`http://127.0.0.1:${port}`), logs };
}

/** Fails with the exchange when `reply` is not `status`. */
export function expectStatus(reply: Reply, status: number, what: string): any {
  if (reply.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${reply.status} ${reply.text.slice(0, 400)}`);
  }
  return reply.body;
}

/** What `seedOrganization` made, by kind, all through the API. */
export interface Seeded {
  organizationId: string;
  products: string[];
  /** Billable metrics with the product each belongs to. */
  metrics: { id: string; productId: string }[];
  /** Free prices, each with its metric and that metric's product. */
  freePrices: { id: string; billableMetricId: string; productId: string }[];
  plans: string[];
  /** Prices in the plans above. */
  planPrices: string[];
  accounts: string[];
  /** The plaintext account numbers sent (to look for them where they must not be). */
  accountNumbers: string[];
  customers: string[];
  /** A subscription per plan, each of a customer above. */
  subscriptions: string[];
  /** Usage events of the first customer. */
  usageEvents: string[];
  /** Draft invoices of the subscriptions (seedInvoices: the billing run makes them at a period's end). */
  invoices: string[];
}

/** A standard price body for `billableMetricId`. */
export function priceBody(billableMetricId: string, unitPrice = '0.25'): Record<string, unknown> {
  return {
    billableMetricId,
    model: 'standard',
    invoiceDisplayName: 'API calls',
    properties: { unitPrice },
  };
}

/** A valid US account create body with a fresh 12-digit account number. */
export function accountBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    countryCode: 'US',
    bankName: 'STRIPE TEST BANK',
    currency: 'USD',
    accountNumber: uniqueDigits(12),
    routingNumber: '110000000',
    accountHolderName: 'Jenny Rosen',
    accountHolderType: 'individual',
    ...overrides,
  };
}

/**
 * A small world for one organization, made over HTTP: products, metrics (several per product),
 * free prices, plans holding prices, and external accounts.
 */
export async function seedOrganization(
  client: HttpClient,
  tenant: TestTenant,
  counts: {
    products: number;
    metricsPerProduct: number;
    freePricesPerMetric: number;
    plans: number;
    accounts: number;
    /** Customers, then a subscription per plan and usage events (none by default). */
    customers?: number;
  },
): Promise<Seeded> {
  const auth = tenant.auth;
  const seeded: Seeded = {
    organizationId: tenant.organizationId,
    products: [],
    metrics: [],
    freePrices: [],
    plans: [],
    planPrices: [],
    accounts: [],
    accountNumbers: [],
    customers: [],
    subscriptions: [],
    usageEvents: [],
    invoices: [],
  };
  for (let p = 0; p < counts.products; p++) {
    const product = expectStatus(
      await client.post('/v0/products', { name: `Product ${p}`, metadata: { seed: p } }, auth),
      201,
      'seed product',
    );
    seeded.products.push(product.id);
    for (let m = 0; m < counts.metricsPerProduct; m++) {
      const metric = expectStatus(
        await client.post(
          '/v0/billableMetrics',
          { productId: product.id, name: `Metric ${p}.${m}`, unit: 'call', aggregation: 'COUNT' },
          auth,
        ),
        201,
        'seed metric',
      );
      seeded.metrics.push({ id: metric.id, productId: product.id });
      for (let k = 0; k < counts.freePricesPerMetric; k++) {
        const price = expectStatus(
          await client.post('/v0/prices', priceBody(metric.id, `0.${k + 1}`), auth),
          201,
          'seed price',
        );
        seeded.freePrices.push({
          id: price.id,
          billableMetricId: metric.id,
          productId: product.id,
        });
      }
    }
  }
  for (let i = 0; i < counts.plans; i++) {
    const productId = seeded.products[i % seeded.products.length];
    const prices: string[] = [];
    for (const metric of seeded.metrics.filter((m) => m.productId === productId)) {
      const price = expectStatus(
        await client.post('/v0/prices', priceBody(metric.id), auth),
        201,
        'seed plan price',
      );
      prices.push(price.id);
    }
    const plan = expectStatus(
      await client.post(
        '/v0/plans',
        { name: `Plan ${i}`, productId, billingInterval: 'monthly', prices },
        auth,
      ),
      201,
      'seed plan',
    );
    seeded.plans.push(plan.id);
    seeded.planPrices.push(...prices);
  }
  for (let i = 0; i < counts.accounts; i++) {
    const body = accountBody({ metadata: { seed: i } });
    const account = expectStatus(
      await client.post('/v0/externalAccounts', body, auth),
      201,
      'seed account',
    );
    seeded.accounts.push(account.id);
    seeded.accountNumbers.push(body.accountNumber as string);
  }
  if (!counts.customers) return seeded;
  for (let i = 0; i < counts.customers; i++) {
    const customer = expectStatus(
      await client.post(
        '/v0/customers',
        { name: `Customer ${i}`, email: `c${i}@example.com`, metadata: { seed: i } },
        auth,
      ),
      201,
      'seed customer',
    );
    seeded.customers.push(customer.id);
  }
  for (const [i, planId] of seeded.plans.entries()) {
    const customerId = seeded.customers[i % seeded.customers.length];
    const subscription = expectStatus(
      await client.post('/v0/subscriptions', { customerId, planId }, auth),
      201,
      'seed subscription',
    );
    seeded.subscriptions.push(subscription.id);
  }
  const events = [0, 1, 2].map((i) => ({
    idempotencyKey: `seed-${i}`,
    type: 'api.call',
    customerId: seeded.customers[0],
    data: { tokens: String(i) },
  }));
  expectStatus(await client.post('/v0/usageEvents', { events }, auth), 202, 'seed usage');
  const stored = expectStatus(await client.get('/v0/usageEvents', auth), 200, 'seed usage list');
  seeded.usageEvents.push(...stored.data.map((e: { id: string }) => e.id));
  return seeded;
}

/**
 * Draft invoices of `seeded`'s subscriptions, saved as the billing run saves one at a period's
 * end (the API makes no invoice before then): one per subscription, with grace far away.
 */
export async function seedInvoices(t: TestApp, tenant: TestTenant, seeded: Seeded): Promise<void> {
  for (const [i, subscriptionId] of seeded.subscriptions.entries()) {
    const invoice = await createDraftInvoice(t, tenant, {
      subscriptionId,
      customerId: seeded.customers[i % seeded.customers.length],
      planId: seeded.plans[i],
    });
    seeded.invoices.push(invoice.id);
  }
}
