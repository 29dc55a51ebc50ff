import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { RouteTable } from '../../src/platform/route-table';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestTenant } from '../helpers/test-app';
import {
  FRESH_KEY,
  HeaderChoice,
  anyJson,
  bodyArb,
  decimalArb,
  headersArb,
  metadataArb,
  nameArb,
  pathIdArb,
  queryArb,
  rawBodyArb,
} from '../helpers/reliability/arbitraries';
import { describeExchange, findSecrets, replyProblems } from '../helpers/reliability/checks';
import {
  ListeningApp,
  Seeded,
  seedOrganization,
  startListeningApp,
} from '../helpers/reliability/fixtures';
import { Reply } from '../helpers/reliability/http';
import { checkInvariants, snapshot } from '../helpers/reliability/invariants';
import { SEED, reportFigures, scale } from '../helpers/reliability/settings';

/**
 * Property-based tests of every route: generated bodies, query strings, path ids and headers,
 * well-formed and not. Each response is a 2xx or a 4xx in the error envelope (never a 5xx), a
 * refused write (and every read) leaves the database as it was, and what a write answers is what
 * a later GET returns, with the fields the client sent stored literally.
 */
const RUNS = scale(30, 400);
const WEBHOOK_URL = 'https://93.184.216.34/hooks';

interface FuzzRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  /** Valid ids of the caller's organization for `:id`. */
  ids?: () => string[];
  body?: () => fc.Arbitrary<unknown>;
  query?: () => fc.Arbitrary<string>;
}

describe(`property-based requests to every route (${TEST_DIALECT})`, () => {
  let l: ListeningApp;
  let own: TestTenant;
  let other: TestTenant;
  let world: Seeded;
  let foreign: Seeded;
  const endpoints: string[] = [];
  const foreignEndpoints: string[] = [];
  const secrets: string[] = [];
  const figures = {
    requests: 0,
    refusedWrites: 0,
    successfulWrites: 0,
    snapshotsCompared: 0,
    readBacks: 0,
  };

  const statuses = new Map<string, number>();
  const sql = { query: (text: string) => l.t.dataSource.query(text) };

  beforeAll(async () => {
    // Endpoints are saved with a public address that cannot be reached here: nothing delivers.
    l = await startListeningApp({ WEBHOOK_DISPATCHER: 'off' });
    own = await l.t.createTenant('Fuzzed');
    other = await l.t.createTenant('Other');
    const counts = {
      products: 2,
      metricsPerProduct: 3,
      freePricesPerMetric: 3,
      plans: 2,
      accounts: 3,
    };
    world = await seedOrganization(l.client, own, counts);
    foreign = await seedOrganization(l.client, other, { ...counts, freePricesPerMetric: 1 });
    secrets.push(own.apiKey, other.apiKey, ...world.accountNumbers, ...foreign.accountNumbers);
    for (const who of [own, own, other]) {
      const reply = await l.client.request('POST', '/v0/webhookEndpoints', {
        headers: { authorization: who.auth.Authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ url: WEBHOOK_URL, enabledEvents: ['plan.*'] }),
      });
      (who === own ? endpoints : foreignEndpoints).push(reply.body.id as string);
    }
    process.stdout.write(
      `[reliability] fast-check seed=${SEED} runs per route=${RUNS} (RELIABILITY_SEED, RELIABILITY_FULL=1)\n`,
    );
  });

  afterAll(async () => {
    if (!l) return;
    const report = await checkInvariants(sql);
    reportFigures('fuzz', {
      ...figures,
      invariantChecks: report.checks,
      statuses: [...statuses]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([s, n]) => `${s}:${n}`)
        .join(','),
    });
    await l.t.close();
  });

  const ownIds = () => [
    ...world.products,
    ...world.metrics.map((m) => m.id),
    ...world.freePrices.map((p) => p.id),
    ...world.planPrices,
    ...world.plans,
    ...world.accounts,
    ...endpoints,
  ];
  const foreignIds = () => [
    ...foreignEndpoints,
    ...foreign.products,
    ...foreign.metrics.map((m) => m.id),
    ...foreign.freePrices.map((p) => p.id),
    ...foreign.plans,
    ...foreign.accounts,
    foreign.organizationId,
  ];
  /** An id for a reference field: usually one of the right kind, else any id or junk. */
  const ref = (right: () => string[]) =>
    fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(...right()) },
      { weight: 1, arbitrary: fc.constantFrom(...ownIds(), ...foreignIds()) },
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
        .subarray([...world.freePrices.map((p) => p.id), ...world.planPrices])
        .chain((ids) => fc.shuffledSubarray(ids)),
      fc.array(
        ref(() => [...world.freePrices.map((p) => p.id), ...foreign.freePrices.map((p) => p.id)]),
        {
          maxLength: 4,
        },
      ),
      fc.constantFrom(
        [],
        null,
        'price_x',
        Array.from({ length: 101 }, () => world.freePrices[0].id),
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
    fc.constantFrom(own.organizationId, foreign.organizationId, 'org_x', 'org_' + '1'.repeat(20));

  const listQuery = (filters: Record<string, () => fc.Arbitrary<string>>) => () =>
    queryArb(Object.keys(filters), fc.oneof(...Object.values(filters).map((f) => f())));
  const idStrings = (ids: () => string[]) => () =>
    fc.oneof(fc.constantFrom(...ids()), fc.constantFrom(...foreignIds()), fc.constant('prod_'));

  const routes: FuzzRoute[] = [
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
    { method: 'GET', url: '/v0/products/:id', ids: () => world.products },
    {
      method: 'PATCH',
      url: '/v0/products/:id',
      ids: () => world.products,
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
            productId: ref(() => world.products),
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
      query: listQuery({ productId: idStrings(() => world.products) }),
    },
    { method: 'GET', url: '/v0/billableMetrics/:id', ids: () => world.metrics.map((m) => m.id) },
    {
      method: 'PATCH',
      url: '/v0/billableMetrics/:id',
      ids: () => world.metrics.map((m) => m.id),
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
            productId: ref(() => world.products),
            valueProperty: fc.constant('$.x'),
          },
        ),
    },
    {
      method: 'POST',
      url: '/v0/prices',
      body: () =>
        bodyArb(
          {
            billableMetricId: ref(() => world.metrics.map((m) => m.id)),
            model: fc.constantFrom('standard', 'standard', 'dynamic', 'volume', 'tiered'),
            invoiceDisplayName: nameArb,
            properties: priceProperties,
          },
          ['billableMetricId', 'model', 'invoiceDisplayName', 'properties'],
          { planId: fc.constantFrom(...world.plans) },
        ),
    },
    {
      method: 'GET',
      url: '/v0/prices',
      query: listQuery({
        billableMetricId: idStrings(() => world.metrics.map((m) => m.id)),
        planId: idStrings(() => world.plans),
        includeDeleted: () => fc.constantFrom('true', 'false', 'yes', '1'),
      }),
    },
    {
      method: 'GET',
      url: '/v0/prices/:id',
      ids: () => [...world.freePrices.map((p) => p.id), ...world.planPrices],
    },
    {
      method: 'PATCH',
      url: '/v0/prices/:id',
      ids: () => [...world.freePrices.map((p) => p.id), ...world.planPrices],
      body: () =>
        bodyArb(
          {
            invoiceDisplayName: nameArb,
            properties: priceProperties,
          },
          [],
          {
            model: fc.constantFrom('standard', 'dynamic'),
            planId: fc.constantFrom(...world.plans),
            billableMetricId: ref(() => world.metrics.map((m) => m.id)),
          },
        ),
    },
    {
      method: 'DELETE',
      url: '/v0/prices/:id',
      ids: () => [...world.freePrices.map((p) => p.id), ...world.planPrices],
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
            productId: ref(() => world.products),
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
        productId: idStrings(() => world.products),
        merchantId: () => merchant(),
        includeDeleted: () => fc.constantFrom('true', 'false', 'TRUE'),
      }),
    },
    { method: 'GET', url: '/v0/plans/:id', ids: () => world.plans },
    {
      method: 'PATCH',
      url: '/v0/plans/:id',
      ids: () => world.plans,
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
          { currency, productId: ref(() => world.products), merchantId: merchant() },
        ),
    },
    { method: 'DELETE', url: '/v0/plans/:id', ids: () => world.plans },
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
    { method: 'GET', url: '/v0/externalAccounts/:id', ids: () => world.accounts },
    {
      method: 'PATCH',
      url: '/v0/externalAccounts/:id',
      ids: () => world.accounts,
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
    { method: 'DELETE', url: '/v0/externalAccounts/:id', ids: () => world.accounts },
    {
      method: 'GET',
      url: '/v0/events',
      query: () =>
        queryArb(
          ['type', 'startingAfter'],
          fc.constantFrom('plan.*', 'webhookEndpoint.created', 'plan', '*', 'evt_x', ...endpoints),
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
    { method: 'GET', url: '/v0/webhookEndpoints/:id', ids: () => endpoints },
    {
      method: 'PATCH',
      url: '/v0/webhookEndpoints/:id',
      ids: () => endpoints,
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
    { method: 'DELETE', url: '/v0/webhookEndpoints/:id', ids: () => endpoints },
    {
      method: 'POST',
      url: '/v0/webhookEndpoints/:id/rotateSecret',
      ids: () => endpoints,
      body: () => fc.constantFrom({}, { secret: 'whsec_AAAA' }),
    },
    {
      method: 'GET',
      url: '/v0/webhookEndpoints/:id/deliveries',
      ids: () => endpoints,
      query: listQuery({
        eventId: () => fc.constantFrom('evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC', 'evt_x'),
        succeeded: () => fc.constantFrom('true', 'false', 'maybe'),
      }),
    },
  ];

  it('covers every /v0 route of the route table', () => {
    const listed = l.t.app
      .get(RouteTable)
      .list()
      .filter((r) => r.url.startsWith('/v0/'))
      .map((r) => `${r.method} ${r.url}`)
      .sort();
    expect(routes.map((r) => `${r.method} ${r.url}`).sort()).toEqual(listed);
  });

  /** Sends one generated request and returns why it broke a property, or [] when it did not. */
  async function exercise(
    route: FuzzRoute,
    pathId: string,
    query: string,
    choice: HeaderChoice,
    body: { raw: string } | { json: unknown } | undefined,
  ): Promise<{ problems: string[]; path: string; sent: unknown; reply: Reply }> {
    const path = route.url.replace(':id', pathId) + query;
    const headers = { ...choice.headers };
    if (headers['idempotency-key'] === FRESH_KEY) headers['idempotency-key'] = randomUUID();
    if (choice.auth === 'own') headers.authorization = own.auth.Authorization;
    if (choice.auth === 'other') headers.authorization = other.auth.Authorization;
    const sent =
      body === undefined ? undefined : 'raw' in body ? body.raw : JSON.stringify(body.json);
    if (sent !== undefined && !headers['content-type'])
      headers['content-type'] = 'application/json';

    const isWrite = route.method !== 'GET';
    const before = await snapshot(sql, !isWrite || !headers['idempotency-key']);
    const reply = await l.client.request(route.method, path, { headers, body: sent });
    figures.requests += 1;
    const outcome = `${reply.status}${reply.body?.code ? ' ' + reply.body.code : ''}${process.env.FUZZ_DEBUG && reply.body?.errors ? ' ' + route.method + route.url + ':' + reply.body.errors[0].field : ''}`;
    statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
    const problems = replyProblems(reply, {
      sentIfNoneMatch: headers['if-none-match'] !== undefined,
      secrets,
    });
    const succeeded = reply.status >= 200 && reply.status < 300;
    if (!isWrite || !succeeded) {
      const after = await snapshot(sql, !isWrite || !headers['idempotency-key']);
      figures.snapshotsCompared += 1;
      if (isWrite) figures.refusedWrites += 1;
      if (after !== before) problems.push(`the database changed after ${reply.status}`);
    } else {
      figures.successfulWrites += 1;
      if (reply.headers['idempotent-replayed'] !== 'true') {
        problems.push(...(await readBackProblems(route, sent, reply, headers.authorization)));
      }
    }
    return { problems, path, sent, reply };
  }

  /** After a successful write: GET returns what the write answered, and sent fields are kept. */
  async function readBackProblems(
    route: FuzzRoute,
    sent: string | undefined,
    reply: Reply,
    authorization: string,
  ): Promise<string[]> {
    const problems: string[] = [];
    const resource = reply.body as Record<string, any> | undefined;
    if (reply.status === 204 || !resource?.id || resource.deleted === true) return problems;
    const collection = route.url.split('/:id')[0];
    const read = await l.client.get(`${collection}/${resource.id}`, { authorization });
    figures.readBacks += 1;
    // A webhook endpoint's create and rotateSecret answers alone show its secret.
    const { secret, ...shown } = resource;
    const written = typeof secret === 'string' ? JSON.stringify(shown) : reply.text;
    if (read.text !== written) {
      problems.push(`GET answers ${read.text.slice(0, 300)} after the write answered otherwise`);
    }
    let input: Record<string, unknown> = {};
    try {
      input = sent === undefined ? {} : JSON.parse(sent);
    } catch {
      return problems;
    }
    if (typeof input !== 'object' || input === null) return problems;
    for (const key of [
      'name',
      'invoiceDisplayName',
      'unit',
      'eventType',
      'bankName',
      'accountHolderName',
    ]) {
      const value = input[key];
      if (typeof value === 'string' && key in resource && resource[key] !== value) {
        problems.push(
          `${key} sent ${JSON.stringify(value)} came back ${JSON.stringify(resource[key])}`,
        );
      }
    }
    const metadata = input.metadata;
    if (metadata && typeof metadata === 'object' && !Array.isArray(metadata)) {
      for (const [key, value] of Object.entries(metadata)) {
        const stored = resource.metadata?.[key];
        const expected = value === null ? undefined : value;
        if (!Object.is(stored, expected) && !(stored === 0 && expected === 0)) {
          problems.push(
            `metadata ${JSON.stringify(key)} sent ${JSON.stringify(value)} came back ${JSON.stringify(stored)}`,
          );
        }
      }
      if (
        route.method === 'POST' &&
        Object.keys(resource.metadata ?? {}).length !== Object.keys(metadata).length
      ) {
        problems.push('metadata came back with other keys than were sent');
      }
    }
    return problems;
  }

  describe.each(routes.map((r) => [`${r.method} ${r.url}`, r] as const))('%s', (_name, route) => {
    it('answers 2xx or a 4xx envelope, changes nothing when it refuses, and keeps what it accepts', async () => {
      const withBody = route.method === 'POST' || route.method === 'PATCH';
      const body = withBody
        ? fc.oneof(
            { weight: 6, arbitrary: route.body!().map((json) => ({ json })) },
            { weight: 1, arbitrary: rawBodyArb.map((raw) => ({ raw })) },
          )
        : route.method === 'DELETE'
          ? fc.option(
              anyJson.map((json) => ({ json })),
              { freq: 6, nil: undefined },
            )
          : fc.constant(undefined);
      await fc.assert(
        fc.asyncProperty(
          route.ids ? pathIdArb(route.ids(), [...ownIds(), ...foreignIds()]) : fc.constant(''),
          route.query ? route.query() : queryArb([], fc.string(), 40),
          headersArb(withBody),
          body,
          async (pathId, query, choice, sent) => {
            // A list must not take path ids; an id route must not take the collection's empty id.
            const result = await exercise(route, route.ids ? pathId : '', query, choice, sent);
            if (result.problems.length > 0) {
              throw new Error(
                describeExchange(
                  route.method,
                  result.path,
                  result.sent,
                  result.reply,
                  result.problems,
                ),
              );
            }
          },
        ),
        { seed: SEED, numRuns: RUNS, endOnFailure: !process.env.RELIABILITY_SHRINK },
      );
    });
  });

  it('answers the public routes (health, readiness, docs) with any query and headers', async () => {
    const publicRoutes = l.t.app
      .get(RouteTable)
      .list()
      .filter((r) => !r.url.startsWith('/v0/') && r.method === 'GET')
      .map((r) => r.url.replace('*', 'index.html'));
    expect(publicRoutes).toEqual(expect.arrayContaining(['/healthz', '/readyz']));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...publicRoutes),
        queryArb(['limit'], fc.string()),
        headersArb(false),
        async (url, query, choice) => {
          const reply = await l.client.request('GET', url + query, { headers: choice.headers });
          figures.requests += 1;
          expect(reply.status).toBeLessThan(500);
          expect(reply.headers['x-request-id']).toBeDefined();
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('holds every invariant afterwards, and neither logs nor responses show a secret', async () => {
    const report = await checkInvariants(sql);
    expect(report.violations).toEqual([]);
    expect(findSecrets(l.logs, secrets)).toEqual([]);
    expect(findSecrets(l.client.journal, secrets)).toEqual([]);
  });
});
