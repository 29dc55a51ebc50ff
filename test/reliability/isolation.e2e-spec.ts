import { ApiKeysService } from '../../src/auth/api-keys.service';
import { RouteTable } from '../../src/platform/route-table';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestTenant } from '../helpers/test-app';
import { findSecrets, replyProblems } from '../helpers/reliability/checks';
import {
  ListeningApp,
  Seeded,
  accountBody,
  expectStatus,
  priceBody,
  seedOrganization,
  startListeningApp,
} from '../helpers/reliability/fixtures';
import { Reply } from '../helpers/reliability/http';
import { reportFigures } from '../helpers/reliability/settings';
import { createTwoModeTenant } from '../helpers/modes';
import { createDraftInvoice } from '../helpers/invoices-factory';
import { TestApp } from '../helpers/test-app';

/**
 * Tenancy and modes (docs/api.md §2): B calls every route with A's ids, in paths, body
 * references and filters, and gets exactly what a missing id gets (404), a 400 for a reference,
 * or an empty list with a total of 0; A's data never changes and nothing of A shows through.
 * B is another organization, or A's own organization with a key of the other mode (a test key
 * against live data, a live key against test data): the same answers. Another organization's
 * merchantId/organizationId is a 403; one's own, in the other mode, creates in the key's mode.
 * Then logs and responses are scanned for secrets.
 */
const WEBHOOK_ENDPOINT = { url: 'https://93.184.216.34/hooks', enabledEvents: ['*'] };

/** What a tenant bills with: a customer (on a test clock in test mode) subscribed to a plan. */
interface Billing {
  customer: string;
  subscription: string;
  plan: string;
  testClock: string | null;
}

async function seedBilling(
  client: ListeningApp['client'],
  tenant: TestTenant,
  world: Seeded,
  livemode: boolean,
  externalId: string,
): Promise<Billing> {
  const auth = tenant.auth;
  const clock = livemode
    ? null
    : expectStatus(
        await client.post('/v0/testClocks', { frozenTime: '2027-01-31T10:00:00.000Z' }, auth),
        201,
        'test clock',
      );
  const customer = expectStatus(
    await client.post(
      '/v0/customers',
      { name: 'Jane', email: `${externalId}@example.com`, externalId, testClockId: clock?.id },
      auth,
    ),
    201,
    'customer',
  );
  // A plan of its own: the seeded plan stays free to change (a subscribed plan is frozen).
  const plan = expectStatus(
    await client.post(
      '/v0/plans',
      { name: 'Subscribed', productId: world.products[0], billingInterval: 'monthly' },
      auth,
    ),
    201,
    'subscribed plan',
  );
  const subscription = expectStatus(
    await client.post('/v0/subscriptions', { customerId: customer.id, planId: plan.id }, auth),
    201,
    'subscription',
  );
  return {
    customer: customer.id,
    subscription: subscription.id,
    plan: plan.id,
    testClock: clock?.id ?? null,
  };
}

interface Scenario {
  name: string;
  /** A's key and B's key: another organization's, or the same organization's other mode. */
  tenants(t: TestApp): Promise<{ a: TestTenant; b: TestTenant }>;
  sameOrganization: boolean;
  /** The mode of A's data; B's is the other one when they share an organization. */
  livemodeOfA: boolean;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'between organizations',
    tenants: async (t) => ({ a: await t.createTenant('A'), b: await t.createTenant('B') }),
    sameOrganization: false,
    livemodeOfA: true,
  },
  {
    name: 'between modes: a test key against live data',
    tenants: async (t) => {
      const org = await createTwoModeTenant(t, 'A');
      return { a: org.live, b: org.test };
    },
    sameOrganization: true,
    livemodeOfA: true,
  },
  {
    name: 'between modes: a live key against test data',
    tenants: async (t) => {
      const org = await createTwoModeTenant(t, 'A');
      return { a: org.test, b: org.live };
    },
    sameOrganization: true,
    livemodeOfA: false,
  },
];

describe.each(SCENARIOS)(`isolation $name (${TEST_DIALECT})`, (scenario) => {
  /** B's mode: live when B is another organization (its key is live), else the other mode. */
  const livemodeOfB = !scenario.sameOrganization || !scenario.livemodeOfA;
  let l: ListeningApp;
  let a: TestTenant;
  let b: TestTenant;
  let worldA: Seeded;
  let worldB: Seeded;
  let billingA: Billing;
  let billingB: Billing;
  /** Every id of A, by kind, including ids that are not resources of the API. */
  let idsOfA: Record<string, string>;
  /** A's customer, whose usage events B may neither send, meter nor list. */
  let customerOfAId: string;
  const etagsOfA = new Map<string, string>();
  const exercised = new Set<string>();
  const secrets: string[] = [];
  /** Shown by their create answers alone (test/webhooks/endpoints.e2e-spec.ts); never logged. */
  const webhookSecrets: string[] = [];
  let calls = 0;

  const rowsOfA = async () => {
    const tables = [
      'products',
      'billable_metrics',
      'prices',
      'plans',
      'external_bank_accounts',
      'idempotency_records',
      'webhook_endpoints',
      'events',
      'usage_events',
      'invoices',
      'customers',
      'subscriptions',
      'test_clocks',
    ];
    const out: string[] = [];
    for (const table of tables) {
      const [p1, p2] = TEST_DIALECT === 'postgres' ? ['$1', '$2'] : ['?', '?'];
      const rows = await l.t.dataSource.query(
        `SELECT * FROM ${table} WHERE organization_id = ${p1} AND livemode = ${p2} ORDER BY id`,
        [
          a.organizationId,
          TEST_DIALECT === 'postgres' ? scenario.livemodeOfA : +scenario.livemodeOfA,
        ],
      );
      out.push(`${table}:${JSON.stringify(rows)}`);
    }
    return out.join('\n');
  };
  let before: string;

  beforeAll(async () => {
    // Webhook endpoints are saved with a public address unreachable here: nothing delivers.
    l = await startListeningApp({ WEBHOOK_DISPATCHER: 'off' });
    ({ a, b } = await scenario.tenants(l.t));
    const counts = {
      products: 1,
      metricsPerProduct: 2,
      freePricesPerMetric: 1,
      plans: 1,
      accounts: 1,
    };
    worldA = await seedOrganization(l.client, a, counts);
    worldB = await seedOrganization(l.client, b, counts);
    billingA = await seedBilling(l.client, a, worldA, scenario.livemodeOfA, 'crm-a');
    billingB = await seedBilling(l.client, b, worldB, livemodeOfB, 'crm-b');
    const deleted = expectStatus(
      await l.client.post(
        '/v0/plans',
        { name: 'Gone', productId: worldA.products[0], billingInterval: 'yearly' },
        a.auth,
      ),
      201,
      'plan of A',
    );
    expectStatus(await l.client.delete(`/v0/plans/${deleted.id}`, a.auth), 200, 'delete plan of A');
    const endpointOfA = expectStatus(
      await l.client.post('/v0/webhookEndpoints', WEBHOOK_ENDPOINT, a.auth),
      201,
      'webhook endpoint of A',
    );
    webhookSecrets.push(endpointOfA.secret);
    const customerOfA = expectStatus(
      await l.client.post(
        '/v0/customers',
        { name: 'A', email: 'a@example.com', externalId: 'shared-external-id' },
        a.auth,
      ),
      201,
      'customer of A',
    );
    expectStatus(
      await l.client.post(
        '/v0/usageEvents',
        {
          events: [{ idempotencyKey: 'usage-of-a', type: 'api.call', customerId: customerOfA.id }],
        },
        a.auth,
      ),
      202,
      'usage event of A',
    );
    const usageOfA = await l.client.get('/v0/usageEvents', a.auth);
    // Invoices are made by the billing run: a draft each, saved as the run saves one.
    const invoiceOfA = await createDraftInvoice(l.t, a, { livemode: scenario.livemodeOfA });
    await createDraftInvoice(l.t, b, { livemode: livemodeOfB });
    const eventsOfA = await l.client.get('/v0/events', a.auth);
    idsOfA = {
      product: worldA.products[0],
      billableMetric: worldA.metrics[0].id,
      freePrice: worldA.freePrices[0].id,
      planPrice: worldA.planPrices[0],
      plan: worldA.plans[0],
      deletedPlan: deleted.id,
      externalAccount: worldA.accounts[0],
      organization: a.organizationId,
      apiKey: a.apiKeyId,
      webhookEndpoint: endpointOfA.id,
      event: eventsOfA.body.data[0].id,
      usageEvent: usageOfA.body.data[0].id,
      invoice: invoiceOfA.id,
      customer: billingA.customer,
      subscription: billingA.subscription,
      ...(billingA.testClock ? { testClock: billingA.testClock } : {}),
    };
    customerOfAId = customerOfA.id;
    for (const [collection, id] of [
      ['products', idsOfA.product],
      ['billableMetrics', idsOfA.billableMetric],
      ['prices', idsOfA.freePrice],
      ['prices', idsOfA.planPrice],
      ['plans', idsOfA.plan],
      ['plans', idsOfA.deletedPlan],
      ['externalAccounts', idsOfA.externalAccount],
      ['webhookEndpoints', idsOfA.webhookEndpoint],
      ['events', idsOfA.event],
      ['usageEvents', idsOfA.usageEvent],
      ['invoices', idsOfA.invoice],
      ['customers', idsOfA.customer],
      ['subscriptions', idsOfA.subscription],
      ...(billingA.testClock ? [['testClocks', billingA.testClock]] : []),
    ]) {
      const reply = await l.client.get(`/v0/${collection}/${id}`, a.auth);
      etagsOfA.set(id, expectStatus(reply, 200, 'read A') && reply.headers.etag);
    }
    secrets.push(a.apiKey, b.apiKey, ...worldA.accountNumbers, ...worldB.accountNumbers);
    before = await rowsOfA();
  });

  afterAll(async () => {
    reportFigures(`isolation ${scenario.name}`, {
      requests: l.client.sent,
      crossOrganizationCalls: calls,
      routes: exercised.size,
    });
    await l?.t.close();
  });

  /** Calls as B, checks the envelope, and records the route as exercised. */
  async function asB(
    method: string,
    url: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    calls += 1;
    exercised.add(`${method} ${url}`);
    const reply = await l.client.request(method, path, {
      body,
      headers: { ...b.auth, ...headers },
    });
    expect(replyProblems(reply, { secrets })).toEqual([]);
    return reply;
  }

  function expectAnswer(reply: Reply, status: number, code?: string, field?: string) {
    expect({
      status: reply.status,
      code: reply.body?.code,
      field: reply.body?.errors?.[0]?.field,
    }).toEqual({
      status,
      code,
      field,
    });
  }

  /** A harmless, valid body for each PATCH route. */
  const patchBodies: Record<string, unknown> = {
    '/v0/products/:id': { name: 'Taken over' },
    '/v0/billableMetrics/:id': { name: 'Taken over' },
    '/v0/prices/:id': { invoiceDisplayName: 'Taken over' },
    '/v0/plans/:id': { name: 'Taken over' },
    '/v0/externalAccounts/:id': { accountHolderName: 'Taken over', status: 'new' },
    '/v0/webhookEndpoints/:id': { description: 'Taken over' },
    '/v0/customers/:id': { name: 'Taken over' },
    '/v0/subscriptions/:id': { metadata: { taken: 'over' } },
  };

  /** The query an id route needs besides its id (the meter's range), so that the id decides. */
  const queryOf = (url: string) =>
    url === '/v0/billableMetrics/:id/meter'
      ? '?customerId=cus_00000000000000000000000000&from=2026-01-01T00:00:00.000Z&to=2026-02-01T00:00:00.000Z'
      : '';
  /** A valid body for each POST route on one resource (none for those that take none). */
  const postBodies: Record<string, unknown> = {
    '/v0/subscriptions/:id/termination': { reason: 'Taken over', at: 'now' },
    '/v0/testClocks/:id/advance': { frozenTime: '2028-01-01T00:00:00.000Z' },
  };
  const bodyFor = (route: { method: string; url: string }) =>
    route.method === 'PATCH'
      ? patchBodies[route.url]
      : route.method === 'POST'
        ? postBodies[route.url]
        : undefined;

  const idRoutes = () =>
    l.t.app
      .get(RouteTable)
      .list()
      .filter((r) => r.url.startsWith('/v0/') && r.url.includes(':id'));

  it('answers 404 RESOURCE_NOT_FOUND to every id route called with any id of another organization, exactly as for a missing id', async () => {
    const routes = idRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(13);
    for (const route of routes) {
      for (const [kind, id] of Object.entries(idsOfA)) {
        const variants: Record<string, string>[] = [
          {},
          { 'if-match': '*' },
          { 'if-match': etagsOfA.get(id) ?? '"x"' },
          { 'if-none-match': etagsOfA.get(id) ?? '*' },
        ];
        for (const headers of variants) {
          if (route.method !== 'GET' && 'if-none-match' in headers) continue;
          if (route.method === 'GET' && 'if-match' in headers) continue;
          const reply = await asB(
            route.method,
            route.url,
            route.url.replace(':id', id) + queryOf(route.url),
            // A DELETE takes no body (one with fields is a 400 before anything is looked up).
            bodyFor(route),
            headers,
          );
          expect({
            route: `${route.method} ${route.url}`,
            kind,
            status: reply.status,
            code: reply.body?.code,
          }).toEqual({
            route: `${route.method} ${route.url}`,
            kind,
            status: 404,
            code: 'RESOURCE_NOT_FOUND',
          });
          // The same answer as for an id that exists nowhere, apart from the id itself.
          const missingId = id.replace(/_[0-9A-Za-z]+$/, '_00000000000000000000000000');
          const missing = await asB(
            route.method,
            route.url,
            route.url.replace(':id', missingId) + queryOf(route.url),
            bodyFor(route),
          );
          expect(reply.body.message.replace(id, '<id>')).toBe(
            missing.body.message.replace(missingId, '<id>'),
          );
          expect(reply.headers.etag).toBeUndefined();
        }
      }
    }
  });

  it('creates in the key’s mode when merchantId and organizationId name the caller’s own organization', async () => {
    if (!scenario.sameOrganization) return; // the next test: another organization is a 403
    const org = a.organizationId;
    const product = await asB('POST', '/v0/products', '/v0/products', {
      name: 'x',
      merchantId: org,
    });
    expect([product.status, product.body.livemode]).toEqual([201, livemodeOfB]);
    const account = await asB(
      'POST',
      '/v0/externalAccounts',
      '/v0/externalAccounts',
      accountBody({ organizationId: org }),
    );
    expect([account.status, account.body.livemode]).toEqual([201, livemodeOfB]);
  });

  it('answers 403 to merchantId and organizationId of another organization, on writes and filters (400 where they are no filter)', async () => {
    if (scenario.sameOrganization) return; // the test before: one's own organization is allowed
    const org = a.organizationId;
    expectAnswer(
      await asB('POST', '/v0/products', '/v0/products', { name: 'x', merchantId: org }),
      403,
      'FORBIDDEN',
    );
    expectAnswer(
      await asB('POST', '/v0/billableMetrics', '/v0/billableMetrics', {
        productId: worldB.products[0],
        name: 'x',
        unit: 'call',
        aggregation: 'COUNT',
        merchantId: org,
      }),
      403,
      'FORBIDDEN',
    );
    expectAnswer(
      await asB('POST', '/v0/plans', '/v0/plans', {
        name: 'x',
        productId: worldB.products[0],
        billingInterval: 'monthly',
        merchantId: org,
      }),
      403,
      'FORBIDDEN',
    );
    expectAnswer(
      await asB(
        'POST',
        '/v0/externalAccounts',
        '/v0/externalAccounts',
        accountBody({ organizationId: org }),
      ),
      403,
      'FORBIDDEN',
    );
    expectAnswer(
      await asB('GET', '/v0/products', `/v0/products?merchantId=${org}`),
      403,
      'FORBIDDEN',
    );
    expectAnswer(await asB('GET', '/v0/plans', `/v0/plans?merchantId=${org}`), 403, 'FORBIDDEN');
    expectAnswer(
      await asB('GET', '/v0/billableMetrics', `/v0/billableMetrics?merchantId=${org}`),
      403,
      'FORBIDDEN',
    );
    // Not a filter of this list (docs/api.md §5.5): unknown, whoever's id it holds.
    expectAnswer(
      await asB('GET', '/v0/externalAccounts', `/v0/externalAccounts?organizationId=${org}`),
      400,
      'UNKNOWN_FIELD',
      'organizationId',
    );
  });

  it('answers 400 naming the field to a body that refers to another organization’s customer, plan or test clock', async () => {
    expectAnswer(
      await asB('POST', '/v0/subscriptions', '/v0/subscriptions', {
        customerId: idsOfA.customer,
        planId: billingB.plan,
      }),
      400,
      'CUSTOMER_NOT_FOUND',
      'customerId',
    );
    expectAnswer(
      await asB('POST', '/v0/subscriptions', '/v0/subscriptions', {
        customerId: billingB.customer,
        planId: billingA.plan,
      }),
      400,
      'PLAN_NOT_FOUND',
      'planId',
    );
    expectAnswer(
      await asB('PATCH', '/v0/subscriptions/:id', `/v0/subscriptions/${billingB.subscription}`, {
        planId: billingA.plan,
      }),
      400,
      'PLAN_NOT_FOUND',
      'planId',
    );
    if (billingA.testClock) {
      const onClockOfA = await asB('POST', '/v0/customers', '/v0/customers', {
        name: 'x',
        email: 'x@example.com',
        testClockId: billingA.testClock,
      });
      if (livemodeOfB) expectAnswer(onClockOfA, 400, 'FIELD_NOT_ALLOWED', 'testClockId');
      else expectAnswer(onClockOfA, 400, 'TEST_CLOCK_NOT_FOUND', 'testClockId');
    }
    // The same externalId as A's customer is B's own to use.
    const sameExternalId = await asB('POST', '/v0/customers', '/v0/customers', {
      name: 'x',
      email: 'x@example.com',
      externalId: 'crm-a',
    });
    expect(sameExternalId.status).toBe(201);
    const clockOfB = await asB('POST', '/v0/testClocks', '/v0/testClocks', {
      frozenTime: '2027-01-01T00:00:00.000Z',
    });
    expect(clockOfB.status).toBe(livemodeOfB ? 404 : 201);
  });

  it('answers 400 naming the field to a body that refers to another organization’s product, metric or price', async () => {
    expectAnswer(
      await asB('POST', '/v0/billableMetrics', '/v0/billableMetrics', {
        productId: idsOfA.product,
        name: 'x',
        unit: 'call',
        aggregation: 'COUNT',
      }),
      400,
      'PRODUCT_NOT_FOUND',
      'productId',
    );
    expectAnswer(
      await asB('POST', '/v0/prices', '/v0/prices', priceBody(idsOfA.billableMetric)),
      400,
      'BILLABLE_METRIC_NOT_FOUND',
      'billableMetricId',
    );
    expectAnswer(
      await asB('POST', '/v0/plans', '/v0/plans', {
        name: 'x',
        productId: idsOfA.product,
        billingInterval: 'monthly',
      }),
      400,
      'PRODUCT_NOT_FOUND',
      'productId',
    );
    for (const ref of [
      { customerId: customerOfAId },
      { externalCustomerId: 'shared-external-id' },
    ]) {
      expectAnswer(
        await asB('POST', '/v0/usageEvents', '/v0/usageEvents', {
          events: [{ idempotencyKey: 'usage-of-b', type: 'api.call', ...ref }],
        }),
        400,
        'CUSTOMER_NOT_FOUND',
        `events[0].${Object.keys(ref)[0]}`,
      );
    }
    const metricOfB = worldB.metrics[0].id;
    expectAnswer(
      await asB(
        'GET',
        '/v0/billableMetrics/:id/meter',
        `/v0/billableMetrics/${metricOfB}/meter?customerId=${customerOfAId}&from=2026-01-01T00:00:00.000Z&to=2026-02-01T00:00:00.000Z`,
      ),
      400,
      'CUSTOMER_NOT_FOUND',
      'customerId',
    );
    for (const priceId of [idsOfA.freePrice, idsOfA.planPrice]) {
      expectAnswer(
        await asB('POST', '/v0/plans', '/v0/plans', {
          name: 'x',
          productId: worldB.products[0],
          billingInterval: 'monthly',
          prices: [priceId],
        }),
        400,
        'PRICE_NOT_FOUND',
        'prices[0]',
      );
      expectAnswer(
        await asB('PATCH', '/v0/plans/:id', `/v0/plans/${worldB.plans[0]}`, {
          prices: [worldB.planPrices[0], priceId],
        }),
        400,
        'PRICE_NOT_FOUND',
        'prices[1]',
      );
    }
  });

  it('filters by another organization’s ids to an empty list, and no list of B ever shows A', async () => {
    const filtered: [string, string][] = [
      ['/v0/billableMetrics', `productId=${idsOfA.product}`],
      ['/v0/prices', `billableMetricId=${idsOfA.billableMetric}`],
      ['/v0/prices', `planId=${idsOfA.plan}`],
      ['/v0/prices', `planId=${idsOfA.deletedPlan}&includeDeleted=true`],
      ['/v0/plans', `productId=${idsOfA.product}&includeDeleted=true`],
      ['/v0/customers', 'email=crm-a@example.com'],
      ['/v0/subscriptions', `customerId=${idsOfA.customer}`],
      ['/v0/subscriptions', `planId=${billingA.plan}`],
    ];
    for (const [url, query] of filtered) {
      const reply = await asB('GET', url, `${url}?${query}`);
      expect({
        url,
        query,
        status: reply.status,
        data: reply.body.data,
        total: reply.body.pagination?.total,
      }).toEqual({
        url,
        query,
        status: 200,
        data: [],
        total: 0,
      });
    }
    // B's own endpoint (and so B's own event), so that B's lists have something to show.
    const endpointOfB = await asB(
      'POST',
      '/v0/webhookEndpoints',
      '/v0/webhookEndpoints',
      WEBHOOK_ENDPOINT,
    );
    expect(endpointOfB.status).toBe(201);
    webhookSecrets.push(endpointOfB.body.secret as string);
    const customerOfB = await asB('POST', '/v0/customers', '/v0/customers', {
      name: 'B',
      email: 'b@example.com',
    });
    expect(customerOfB.status).toBe(201);
    const usageOfB = await asB('POST', '/v0/usageEvents', '/v0/usageEvents', {
      events: [{ idempotencyKey: 'usage-of-a', type: 'api.call', customerId: customerOfB.body.id }],
    });
    // A's key is A's: the same key is new for B.
    expect(usageOfB.body).toEqual({ accepted: 1, duplicates: 0 });
    const usageFiltered = await asB(
      'GET',
      '/v0/usageEvents',
      `/v0/usageEvents?customerId=${customerOfAId}`,
    );
    expect([usageFiltered.status, usageFiltered.body.data]).toEqual([200, []]);
    expectAnswer(
      await asB('GET', '/v0/usageEvents', `/v0/usageEvents?startingAfter=${idsOfA.usageEvent}`),
      400,
      'UNKNOWN_CURSOR',
      'startingAfter',
    );
    for (const cursor of ['startingAfter', 'endingBefore']) {
      const eventsOfB = await asB('GET', '/v0/events', `/v0/events?${cursor}=${idsOfA.event}`);
      expectAnswer(eventsOfB, 400, 'UNKNOWN_CURSOR', cursor);
    }
    // The organization id is B's own too when B is A's other mode.
    const everyIdOfA = Object.entries(idsOfA)
      .filter(([kind]) => !(scenario.sameOrganization && kind === 'organization'))
      .map(([, id]) => id);
    for (const route of l.t.app.get(RouteTable).list()) {
      if (route.method !== 'GET' || !route.url.startsWith('/v0/') || route.url.includes(':id'))
        continue;
      if (route.url === '/v0/testClocks' && livemodeOfB) {
        // Test clocks are test mode only: a live key finds no such route.
        expectAnswer(await asB('GET', route.url, route.url), 404, 'ROUTE_NOT_FOUND');
        continue;
      }
      const query =
        route.url === '/v0/plans' || route.url === '/v0/prices'
          ? '?includeDeleted=true&limit=100'
          : '?limit=100';
      const reply = await asB('GET', route.url, route.url + query);
      expect(reply.status).toBe(200);
      expect(reply.body.data.length).toBeGreaterThan(0);
      expect(everyIdOfA.filter((id) => reply.text.includes(id))).toEqual([]);
      // Totals count B's own resources only (B has fewer than a page of each).
      if (reply.body.pagination.total !== undefined) {
        expect({ url: route.url, total: reply.body.pagination.total }).toEqual({
          url: route.url,
          total: reply.body.data.length,
        });
      }
      const modes = new Set(reply.body.data.map((r: { livemode: boolean }) => r.livemode));
      expect({ url: route.url, modes: [...modes] }).toEqual({
        url: route.url,
        modes: [livemodeOfB],
      });
    }
  });

  it('keeps idempotency keys apart: B reusing A’s key runs its own request', async () => {
    const key = 'shared-key-between-organizations';
    const first = await l.client.post(
      '/v0/products',
      { name: 'A with key' },
      { ...a.auth, 'idempotency-key': key },
    );
    expect(first.status).toBe(201);
    const reply = await asB(
      'POST',
      '/v0/products',
      '/v0/products',
      { name: 'A with key' },
      { 'idempotency-key': key },
    );
    expect(reply.status).toBe(201);
    expect(reply.headers['idempotent-replayed']).toBeUndefined();
    expect(reply.body.id).not.toBe(first.body.id);
    expect(reply.body.merchantId).toBe(b.organizationId);
    expect(reply.body.livemode).toBe(livemodeOfB);
    before = await rowsOfA();
  });

  it('lets B hold the same bank account as A (201, not 409), which tells B nothing about A', async () => {
    // Duplicates are per organization and mode: within A's mode this account is a 409 (below).
    const sameAsA = accountBody({ accountNumber: worldA.accountNumbers[0] });
    const reply = await asB('POST', '/v0/externalAccounts', '/v0/externalAccounts', sameAsA);
    expect(reply.status).toBe(201);
    expect(reply.body.organizationId).toBe(b.organizationId);
  });

  it('reached every /v0 route, and left A’s data as it was', async () => {
    const routes = l.t.app
      .get(RouteTable)
      .list()
      .filter((r) => r.url.startsWith('/v0/'))
      .map((r) => `${r.method} ${r.url}`);
    expect(routes.filter((r) => !exercised.has(r))).toEqual([]);
    expect(await rowsOfA()).toBe(before);
  });

  describe('secrets', () => {
    const mistyped = [
      'DE89370400440532013001',
      'FR1420041010050500013M02606',
      'GB82WEST12345698765433',
    ];

    it('are never echoed by errors about them', async () => {
      const numbers = [...mistyped];
      secrets.push(...numbers);
      for (const accountNumber of numbers) {
        const reply = await l.client.post(
          '/v0/externalAccounts',
          accountBody({
            accountNumber,
            countryCode: 'DE',
            routingNumber: 'DEUTDEFF',
            currency: 'EUR',
          }),
          a.auth,
        );
        expect(reply.status).toBe(400);
        expect(reply.text).not.toContain(accountNumber);
      }
      const duplicate = await l.client.post(
        '/v0/externalAccounts',
        accountBody({ accountNumber: worldA.accountNumbers[0] }),
        a.auth,
      );
      expect(duplicate.status).toBe(409);
      const patch = await l.client.patch(
        `/v0/externalAccounts/${worldA.accounts[0]}`,
        { accountNumber: worldA.accountNumbers[0] },
        a.auth,
      );
      expect(patch.status).toBe(400);
      const revokedKey = await l.t.createTenant('Revoked');
      await l.t.app.get(ApiKeysService).revokeApiKey(revokedKey.apiKeyId);
      secrets.push(revokedKey.apiKey);
      for (const key of [
        revokedKey.apiKey,
        'sk_live_' + 'Z'.repeat(32),
        'sk_test_' + 'Y'.repeat(32),
      ]) {
        const reply = await l.client.get('/v0/products', { authorization: `Bearer ${key}` });
        expect(reply.status).toBe(401);
        secrets.push(key);
      }
    });

    it('appear in no log line and no response: no account number, no API key', () => {
      expect(l.logs.length).toBeGreaterThan(100);
      expect(findSecrets(l.logs, secrets)).toEqual([]);
      expect(webhookSecrets).toHaveLength(2);
      expect(findSecrets(l.logs, webhookSecrets)).toEqual([]);
      expect(findSecrets(l.client.journal, secrets)).toEqual([]);
      // Responses show account numbers only redacted.
      const shown = l.client.journal.flatMap((text) =>
        [...text.matchAll(/"accountNumber":"([^"]*)"/g)].map((m) => m[1]),
      );
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.filter((n) => !/^\*{4}[A-Z0-9]{4}$/.test(n))).toEqual([]);
    });
  });
});
