import fc from 'fast-check';
import { anyJson, bodyArb, decimalArb, metadataArb, nameArb, queryArb } from './arbitraries';
import { FuzzRoute, FuzzSuite, WEBHOOK_URL } from './fuzz';

/** The routes of each module, for the fuzz suite of each (a group per spec file). */
export interface FuzzRoutes {
  /** Products and billable metrics. */
  catalog: FuzzRoute[];
  /** Prices and plans. */
  plans: FuzzRoute[];
  externalAccounts: FuzzRoute[];
  /** Events and webhook endpoints. */
  webhooks: FuzzRoute[];
  /** Customers, test clocks, subscriptions, usage events, meters and invoices. */
  billing: FuzzRoute[];
}

/** Well-shaped ids that no organization has: test clocks answer 404 to a live key anyway. */
const UNKNOWN_CLOCK = 'clock_01JD3Y2Q6J8C4N1V9W5X7Z0ABC';

/**
 * Every /v0 route with the generators of its ids, query and body: mostly valid values of the
 * suite's own organization, sometimes another organization's ids or anything at all. The
 * generators read the seeded ids when a test runs, after beforeAll.
 */
export function fuzzRoutes(s: FuzzSuite): FuzzRoutes {
  /** An id for a reference field: usually one of the right kind, else any id or junk. */
  const ref = (right: () => string[]) =>
    fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(...right()) },
      { weight: 1, arbitrary: fc.constantFrom(...s.ownIds(), ...s.foreignIds()) },
      { weight: 1, arbitrary: anyJson },
    );
  /** Mostly `valid`, sometimes any JSON at all. */
  const mostly = (valid: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 10, arbitrary: valid }, { weight: 1, arbitrary: anyJson });
  const priceProperties = fc.oneof(
    fc.record({ unitPrice: decimalArb }),
    fc.record({ unitPrice: decimalArb }),
    fc.record({ minPrice: decimalArb, maxPrice: decimalArb }),
    fc.record({
      default: decimalArb,
      parameters: fc.record({
        function: fc.constantFrom('linear', 'exponential', 1),
        gradient: decimalArb,
        min: decimalArb,
        max: decimalArb,
      }),
    }),
  );
  const tax = mostly(
    fc.record(
      {
        behavior: fc.constantFrom('exclusive', 'inclusive', 'exclusive', 'EXCLUSIVE', null),
        code: fc.oneof(fc.constant(null), nameArb),
        rate: decimalArb,
      },
      { requiredKeys: [] },
    ),
  );
  const priceList = () =>
    fc.oneof(
      fc
        .subarray([...s.world.freePrices.map((p) => p.id), ...s.world.planPrices])
        .chain((ids) => fc.shuffledSubarray(ids)),
      fc.array(
        ref(() => [
          ...s.world.freePrices.map((p) => p.id),
          ...s.foreign.freePrices.map((p) => p.id),
        ]),
        {
          maxLength: 4,
        },
      ),
      fc.constantFrom(
        [],
        null,
        'price_x',
        Array.from({ length: 101 }, () => s.world.freePrices[0].id),
      ),
    );
  const interval = fc.constantFrom('weekly', 'monthly', 'quarterly', 'yearly', 'monthly', 'daily');
  const currency = fc.constantFrom('USD', 'EUR', 'JPY', 'GBP', 'USD', 'EUR', 'XYZ', 'usd');
  const description = fc.oneof(
    fc.constant(null),
    fc.constant(''),
    nameArb,
    fc.constant('d'.repeat(2001)),
  );
  const merchant = () =>
    fc.constantFrom(
      s.own.organizationId,
      s.foreign.organizationId,
      'org_x',
      'org_' + '1'.repeat(20),
    );

  const listQuery = (filters: Record<string, () => fc.Arbitrary<string>>) => () =>
    queryArb(Object.keys(filters), fc.oneof(...Object.values(filters).map((f) => f())));
  const idStrings = (ids: () => string[]) => () =>
    fc.oneof(fc.constantFrom(...ids()), fc.constantFrom(...s.foreignIds()), fc.constant('prod_'));
  /** An instant as the API takes it, sometimes one it refuses. */
  const instant = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        '2026-01-01T00:00:00.000Z',
        '2026-11-01T00:00:00Z',
        '2026-12-31T23:59:59.999Z',
      ),
    },
    fc
      .date({ min: new Date('1960-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString()),
    fc.constantFrom('2026-02-30T00:00:00Z', '2026-01-01', '2026-01-01T00:00:00+02:00', 'now', ''),
  );
  const email = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('jane@example.com', 'a.b+c@example.co.uk') },
    fc.constantFrom('not an email', '@example.com', 'a@' + 'b'.repeat(260) + '.com', ''),
    fc.emailAddress(),
  );
  const address = fc.oneof(
    fc.record(
      {
        line1: fc.oneof(nameArb, fc.constant(null)),
        line2: fc.oneof(nameArb, fc.constant(null)),
        city: fc.oneof(nameArb, fc.constant(null)),
        state: fc.oneof(nameArb, fc.constant(null)),
        postalCode: fc.oneof(nameArb, fc.constant(null)),
        country: fc.constantFrom('US', 'GB', 'DE', 'US', 'GB', 'DE', 'XX', 'us', ''),
      },
      { requiredKeys: ['country'] },
    ),
    fc.constant(null),
  );
  const customers = () => s.world.customers;
  const subscriptions = () => s.world.subscriptions;
  const invoices = () => s.world.invoices;

  return {
    catalog: [
      {
        method: 'POST',
        url: '/v0/products',
        body: () =>
          bodyArb(
            { name: nameArb, description, merchantId: merchant(), metadata: metadataArb(false) },
            ['name'],
          ),
      },
      {
        method: 'GET',
        url: '/v0/products',
        query: listQuery({ merchantId: () => merchant() }),
      },
      { method: 'GET', url: '/v0/products/:id', ids: () => s.world.products },
      {
        method: 'PATCH',
        url: '/v0/products/:id',
        ids: () => s.world.products,
        body: () =>
          bodyArb({ name: nameArb, description, metadata: metadataArb(true) }, [], {
            merchantId: merchant(),
            createdAt: fc.constant('2020-01-01T00:00:00.000Z'),
          }),
      },
      {
        method: 'POST',
        url: '/v0/billableMetrics',
        body: () =>
          bodyArb(
            {
              productId: ref(() => s.world.products),
              name: nameArb,
              unit: nameArb,
              aggregation: fc.constantFrom(
                'COUNT',
                'COUNT',
                'SUM',
                'MAX',
                'UNIQUE_COUNT',
                'LATEST',
                'sum',
              ),
              valueProperty: fc.oneof(
                fc.constantFrom(
                  '$.tokens',
                  '$.usage.input_tokens',
                  '$.tokens',
                  '$',
                  'tokens',
                  '$.a-b',
                  null,
                ),
                fc.string(),
              ),
              description,
              eventType: fc.oneof(fc.constant(null), nameArb),
              merchantId: merchant(),
            },
            ['productId', 'name', 'unit', 'aggregation'],
          ),
      },
      {
        method: 'GET',
        url: '/v0/billableMetrics',
        query: listQuery({ productId: idStrings(() => s.world.products) }),
      },
      {
        method: 'GET',
        url: '/v0/billableMetrics/:id',
        ids: () => s.world.metrics.map((m) => m.id),
      },
      {
        method: 'PATCH',
        url: '/v0/billableMetrics/:id',
        ids: () => s.world.metrics.map((m) => m.id),
        body: () =>
          bodyArb(
            {
              name: nameArb,
              unit: nameArb,
              description,
            },
            [],
            {
              aggregation: fc.constantFrom('SUM'),
              productId: ref(() => s.world.products),
              valueProperty: fc.constant('$.x'),
            },
          ),
      },
    ],
    plans: [
      {
        method: 'POST',
        url: '/v0/prices',
        body: () =>
          bodyArb(
            {
              billableMetricId: ref(() => s.world.metrics.map((m) => m.id)),
              model: fc.constantFrom('standard', 'standard', 'dynamic', 'volume', 'tiered'),
              invoiceDisplayName: nameArb,
              properties: priceProperties,
            },
            ['billableMetricId', 'model', 'invoiceDisplayName', 'properties'],
            { planId: fc.constantFrom(...s.world.plans) },
          ),
      },
      {
        method: 'GET',
        url: '/v0/prices',
        query: listQuery({
          billableMetricId: idStrings(() => s.world.metrics.map((m) => m.id)),
          planId: idStrings(() => s.world.plans),
          includeDeleted: () => fc.constantFrom('true', 'false', 'yes', '1'),
        }),
      },
      {
        method: 'GET',
        url: '/v0/prices/:id',
        ids: () => [...s.world.freePrices.map((p) => p.id), ...s.world.planPrices],
      },
      {
        method: 'PATCH',
        url: '/v0/prices/:id',
        ids: () => [...s.world.freePrices.map((p) => p.id), ...s.world.planPrices],
        body: () =>
          bodyArb(
            {
              invoiceDisplayName: nameArb,
              properties: priceProperties,
            },
            [],
            {
              model: fc.constantFrom('standard', 'dynamic'),
              planId: fc.constantFrom(...s.world.plans),
              billableMetricId: ref(() => s.world.metrics.map((m) => m.id)),
            },
          ),
      },
      {
        method: 'DELETE',
        url: '/v0/prices/:id',
        ids: () => [...s.world.freePrices.map((p) => p.id), ...s.world.planPrices],
      },
      {
        method: 'POST',
        url: '/v0/plans',
        body: () =>
          bodyArb(
            {
              name: nameArb,
              invoiceDisplayName: nameArb,
              description,
              merchantId: merchant(),
              productId: ref(() => s.world.products),
              billingInterval: interval,
              currency,
              tax,
              prices: priceList(),
            },
            ['name', 'productId', 'billingInterval'],
          ),
      },
      {
        method: 'GET',
        url: '/v0/plans',
        query: listQuery({
          productId: idStrings(() => s.world.products),
          merchantId: () => merchant(),
          includeDeleted: () => fc.constantFrom('true', 'false', 'TRUE'),
        }),
      },
      { method: 'GET', url: '/v0/plans/:id', ids: () => s.world.plans },
      {
        method: 'PATCH',
        url: '/v0/plans/:id',
        ids: () => s.world.plans,
        body: () =>
          bodyArb(
            {
              name: nameArb,
              invoiceDisplayName: nameArb,
              description,
              billingInterval: interval,
              tax,
              prices: priceList(),
            },
            [],
            { currency, productId: ref(() => s.world.products), merchantId: merchant() },
          ),
      },
      { method: 'DELETE', url: '/v0/plans/:id', ids: () => s.world.plans },
    ],
    externalAccounts: [
      {
        method: 'POST',
        url: '/v0/externalAccounts',
        body: () =>
          bodyArb(
            {
              countryCode: fc.constantFrom('US', 'US', 'US', 'GB', 'DE', 'FR', 'CA', 'AU', 'XX'),
              bankName: nameArb,
              currency,
              accountNumber: fc.oneof(
                { weight: 4, arbitrary: fc.stringMatching(/^[0-9]{12}$/) },
                fc.constantFrom('DE89370400440532013000', 'GB82WEST12345698765432', '12', 'DE00'),
                fc.string({ maxLength: 40 }),
              ),
              routingNumber: fc.oneof(
                { weight: 4, arbitrary: fc.constant('110000000') },
                fc.constantFrom(
                  '110000000',
                  '110000001',
                  '10-88-00',
                  '110-000',
                  '11000-000',
                  'DEUTDEFF',
                  'DEUTDEFF500',
                ),
                fc.string({ maxLength: 40 }),
              ),
              accountHolderName: nameArb,
              accountHolderType: fc.constantFrom('individual', 'company', 'other'),
              metadata: metadataArb(false),
              organizationId: merchant(),
            },
            [
              'countryCode',
              'bankName',
              'currency',
              'accountNumber',
              'routingNumber',
              'accountHolderName',
              'accountHolderType',
            ],
          ),
      },
      {
        method: 'GET',
        url: '/v0/externalAccounts',
        query: listQuery({
          status: () => fc.constantFrom('pending', 'verified', 'errored', 'new'),
          currency: () => currency,
          countryCode: () => fc.constantFrom('US', 'DE', 'XX'),
        }),
      },
      { method: 'GET', url: '/v0/externalAccounts/:id', ids: () => s.world.accounts },
      {
        method: 'PATCH',
        url: '/v0/externalAccounts/:id',
        ids: () => s.world.accounts,
        body: () =>
          bodyArb(
            {
              accountHolderName: nameArb,
              accountHolderType: fc.constantFrom('individual', 'company', 'other'),
              status: fc.constantFrom('new', 'verified', 'errored', 'pending'),
              metadata: fc.oneof(metadataArb(true), fc.constant(null)),
            },
            [],
            {
              accountNumber: fc.constant('000123456789'),
              bankName: nameArb,
              statusReason: nameArb,
              organizationId: merchant(),
            },
          ),
      },
      { method: 'DELETE', url: '/v0/externalAccounts/:id', ids: () => s.world.accounts },
    ],
    webhooks: [
      {
        method: 'GET',
        url: '/v0/events',
        query: () =>
          queryArb(
            ['type', 'startingAfter', 'endingBefore'],
            fc.constantFrom(
              'plan.*',
              'webhookEndpoint.created',
              'plan',
              '*',
              'evt_x',
              ...s.endpoints,
            ),
          ),
      },
      { method: 'GET', url: '/v0/events/:id', ids: () => ['evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'] },
      {
        method: 'POST',
        url: '/v0/webhookEndpoints',
        body: () =>
          bodyArb(
            {
              url: fc.constantFrom(
                WEBHOOK_URL,
                WEBHOOK_URL,
                'http://93.184.216.34/hooks',
                'https://127.0.0.1/hooks',
                'https://[::1]/hooks',
                'not a url',
              ),
              enabledEvents: fc.oneof(
                fc.subarray(['*', 'plan.*', 'price.updated', 'webhookEndpoint.deleted'], {
                  minLength: 1,
                }),
                fc.constantFrom([], ['plan'], ['*', '*'], 'plan.*'),
              ),
              description,
              metadata: metadataArb(false),
            },
            ['url', 'enabledEvents'],
            { secret: fc.constant('whsec_AAAA'), livemode: fc.boolean() },
          ),
      },
      { method: 'GET', url: '/v0/webhookEndpoints', query: () => queryArb([], fc.string()) },
      { method: 'GET', url: '/v0/webhookEndpoints/:id', ids: () => s.endpoints },
      {
        method: 'PATCH',
        url: '/v0/webhookEndpoints/:id',
        ids: () => s.endpoints,
        body: () =>
          bodyArb(
            {
              url: fc.constantFrom(WEBHOOK_URL, 'https://10.0.0.1/hooks', 'ftp://x'),
              enabledEvents: fc.constantFrom(['*'], ['plan.*'], [], ['nope']),
              description,
              metadata: fc.oneof(metadataArb(true), fc.constant(null)),
              status: fc.constantFrom('enabled', 'disabled', 'paused', null),
            },
            [],
            { secret: fc.constant('whsec_AAAA'), livemode: fc.boolean() },
          ),
      },
      { method: 'DELETE', url: '/v0/webhookEndpoints/:id', ids: () => s.endpoints },
      {
        method: 'POST',
        url: '/v0/webhookEndpoints/:id/rotateSecret',
        ids: () => s.endpoints,
        body: () => fc.constantFrom({}, { secret: 'whsec_AAAA' }),
      },
      {
        method: 'GET',
        url: '/v0/webhookEndpoints/:id/deliveries',
        ids: () => s.endpoints,
        query: listQuery({
          eventId: () => fc.constantFrom('evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC', 'evt_x'),
          succeeded: () => fc.constantFrom('true', 'false', 'maybe'),
        }),
      },
    ],
    billing: [
      {
        method: 'POST',
        url: '/v0/customers',
        body: () =>
          bodyArb(
            {
              name: nameArb,
              email,
              externalId: fc.oneof(nameArb, fc.constant(null)),
              address,
              taxId: fc.constantFrom('DE123456789', 'DE123456789', null, 'x'.repeat(51)),
              // A live key may name no clock (400 naming testClockId).
              testClockId: fc.constantFrom(null, null, null, UNKNOWN_CLOCK, 'clock_x'),
              metadata: metadataArb(false),
              merchantId: merchant(),
            },
            ['name', 'email'],
          ),
      },
      {
        method: 'GET',
        url: '/v0/customers',
        query: listQuery({
          email: () => email.map(String),
          externalId: () => nameArb.map(String),
        }),
      },
      { method: 'GET', url: '/v0/customers/:id', ids: customers },
      {
        method: 'PATCH',
        url: '/v0/customers/:id',
        ids: customers,
        body: () =>
          bodyArb(
            {
              name: nameArb,
              email,
              externalId: fc.oneof(nameArb, fc.constant(null)),
              address,
              taxId: fc.oneof(nameArb, fc.constant(null)),
              metadata: fc.oneof(metadataArb(true), fc.constant(null)),
            },
            [],
            { testClockId: fc.constant(UNKNOWN_CLOCK), merchantId: merchant() },
          ),
      },
      { method: 'DELETE', url: '/v0/customers/:id', ids: customers },
      {
        method: 'POST',
        url: '/v0/testClocks',
        body: () => bodyArb({ frozenTime: instant, name: nameArb }, ['frozenTime']),
      },
      { method: 'GET', url: '/v0/testClocks', query: () => queryArb([], fc.string()) },
      { method: 'GET', url: '/v0/testClocks/:id', ids: () => [UNKNOWN_CLOCK] },
      { method: 'DELETE', url: '/v0/testClocks/:id', ids: () => [UNKNOWN_CLOCK] },
      {
        method: 'POST',
        url: '/v0/testClocks/:id/advance',
        ids: () => [UNKNOWN_CLOCK],
        body: () => bodyArb({ frozenTime: instant }, ['frozenTime']),
      },
      {
        method: 'POST',
        url: '/v0/subscriptions',
        body: () =>
          bodyArb(
            {
              customerId: ref(customers),
              planId: ref(() => s.world.plans),
              startedAt: instant,
              metadata: metadataArb(false),
            },
            ['customerId', 'planId'],
          ),
      },
      {
        method: 'GET',
        url: '/v0/subscriptions',
        query: listQuery({
          customerId: idStrings(customers),
          planId: idStrings(() => s.world.plans),
          status: () => fc.constantFrom('pending', 'active', 'terminated', 'ACTIVE'),
        }),
      },
      { method: 'GET', url: '/v0/subscriptions/:id', ids: subscriptions },
      {
        method: 'PATCH',
        url: '/v0/subscriptions/:id',
        ids: subscriptions,
        body: () =>
          bodyArb(
            {
              planId: ref(() => s.world.plans),
              metadata: fc.oneof(metadataArb(true), fc.constant(null)),
            },
            [],
            {
              customerId: ref(customers),
              startedAt: instant,
              status: fc.constantFrom('terminated'),
              endingAt: instant,
            },
          ),
      },
      {
        method: 'POST',
        url: '/v0/subscriptions/:id/termination',
        ids: subscriptions,
        body: () =>
          bodyArb({ reason: nameArb, at: fc.constantFrom('now', 'periodEnd', 'later', null) }, [
            'reason',
          ]),
      },
      {
        method: 'GET',
        url: '/v0/subscriptions/:id/upcomingInvoice',
        ids: subscriptions,
      },
      {
        method: 'POST',
        url: '/v0/usageEvents',
        body: () =>
          mostly(
            fc.record({
              events: fc.array(
                bodyArb(
                  {
                    idempotencyKey: fc.oneof(fc.uuid(), nameArb),
                    type: fc.constantFrom('api.call', 'api.call', 'tokens', 'a b', ''),
                    customerId: ref(customers),
                    externalCustomerId: nameArb,
                    timestamp: instant,
                    data: fc.oneof(
                      fc.record({ tokens: decimalArb }),
                      metadataArb(false),
                      fc.constant(null),
                    ),
                  },
                  ['idempotencyKey', 'type'],
                ),
                { maxLength: 4 },
              ),
            }),
          ),
      },
      {
        method: 'GET',
        url: '/v0/usageEvents',
        query: listQuery({
          customerId: idStrings(customers),
          type: () => fc.constantFrom('api.call', 'a b', '*'),
          from: () => instant,
          to: () => instant,
          startingAfter: idStrings(() => s.world.usageEvents),
        }),
      },
      { method: 'GET', url: '/v0/usageEvents/:id', ids: () => s.world.usageEvents },
      {
        method: 'GET',
        url: '/v0/billableMetrics/:id/meter',
        ids: () => s.world.metrics.map((m) => m.id),
        query: listQuery({
          customerId: idStrings(customers),
          from: () => instant,
          to: () => instant,
          windowSize: () => fc.constantFrom('hour', 'day', 'week'),
        }),
      },
      {
        method: 'GET',
        url: '/v0/invoices',
        query: listQuery({
          customerId: idStrings(customers),
          subscriptionId: idStrings(subscriptions),
          status: () => fc.constantFrom('draft', 'issued', 'paid', 'void', 'upcoming'),
        }),
      },
      { method: 'GET', url: '/v0/invoices/:id', ids: invoices },
      { method: 'GET', url: '/v0/invoices/:id/pdf', ids: invoices, produces: 'application/pdf' },
      {
        method: 'POST',
        url: '/v0/invoices/:id/finalize',
        ids: invoices,
        body: () => mostly(fc.constant({})),
      },
      {
        method: 'POST',
        url: '/v0/invoices/:id/pay',
        ids: invoices,
        body: () =>
          bodyArb({ paidAt: instant, reference: fc.oneof(nameArb, fc.constant(null)) }, []),
      },
      {
        method: 'POST',
        url: '/v0/invoices/:id/void',
        ids: invoices,
        body: () => mostly(fc.constant({})),
      },
    ],
  };
}
