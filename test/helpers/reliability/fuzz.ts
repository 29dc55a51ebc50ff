import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { TestTenant } from '../test-app';
import {
  FRESH_KEY,
  HeaderChoice,
  anyJson,
  headersArb,
  pathIdArb,
  queryArb,
  rawBodyArb,
} from './arbitraries';
import { describeExchange, findSecrets, replyProblems } from './checks';
import {
  ListeningApp,
  Seeded,
  seedInvoices,
  seedOrganization,
  startListeningApp,
} from './fixtures';
import { Reply } from './http';
import { Sql, checkInvariants, snapshot } from './invariants';
import { SEED, reportFigures, scale } from './settings';

/**
 * The harness of the property-based suites (test/reliability/fuzz-*.e2e-spec.ts): generated
 * bodies, query strings, path ids and headers, well-formed and not, sent to each route. Each
 * response is a 2xx or a 4xx in the error envelope (never a 5xx), a refused write (and every
 * read) leaves the database as it was, and what a write answers is what a later GET returns, with
 * the fields the client sent stored literally. The routes and their generators are in
 * fuzz-routes.ts.
 */
export const RUNS = scale(30, 400);
/** Endpoints are saved with a public address that cannot be reached here: nothing delivers. */
export const WEBHOOK_URL = 'https://93.184.216.34/hooks';

export interface FuzzRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  /** Valid ids of the caller's organization for `:id`. */
  ids?: () => string[];
  body?: () => fc.Arbitrary<unknown>;
  query?: () => fc.Arbitrary<string>;
  /** The media type of a 2xx when it is not JSON (an invoice's PDF). */
  produces?: string;
}

/** One fuzzed app and what was seeded in it; the fields are set once beforeAll has run. */
export interface FuzzSuite {
  l: ListeningApp;
  own: TestTenant;
  other: TestTenant;
  world: Seeded;
  foreign: Seeded;
  /** Webhook endpoints of `own`, and of `other`. */
  endpoints: string[];
  foreignEndpoints: string[];
  /** API keys and account numbers: never in a response or a log line. */
  secrets: string[];
  figures: {
    requests: number;
    refusedWrites: number;
    successfulWrites: number;
    snapshotsCompared: number;
    readBacks: number;
  };
  /** How often each status (and error code) was answered. */
  statuses: Map<string, number>;
  sql: Sql;
  ownIds(): string[];
  foreignIds(): string[];
}

/**
 * Registers the suite's beforeAll/afterAll (call it inside the top describe): a listening app
 * with two organizations, each seeded over HTTP, and webhook endpoints; afterwards the figures
 * are reported as `suite`.
 */
export function fuzzSuite(suite: string): FuzzSuite {
  const s = {
    endpoints: [],
    foreignEndpoints: [],
    secrets: [],
    figures: {
      requests: 0,
      refusedWrites: 0,
      successfulWrites: 0,
      snapshotsCompared: 0,
      readBacks: 0,
    },
    statuses: new Map<string, number>(),
    sql: { query: (text: string) => s.l.t.dataSource.query(text) },
    ownIds: () => [
      ...s.world.products,
      ...s.world.metrics.map((m) => m.id),
      ...s.world.freePrices.map((p) => p.id),
      ...s.world.planPrices,
      ...s.world.plans,
      ...s.world.accounts,
      ...s.endpoints,
      ...s.world.customers,
      ...s.world.subscriptions,
      ...s.world.usageEvents,
      ...s.world.invoices,
    ],
    foreignIds: () => [
      ...s.foreignEndpoints,
      ...s.foreign.products,
      ...s.foreign.metrics.map((m) => m.id),
      ...s.foreign.freePrices.map((p) => p.id),
      ...s.foreign.plans,
      ...s.foreign.accounts,
      ...s.foreign.customers,
      ...s.foreign.subscriptions,
      ...s.foreign.usageEvents,
      ...s.foreign.invoices,
      s.foreign.organizationId,
    ],
  } as unknown as FuzzSuite;

  beforeAll(async () => {
    s.l = await startListeningApp({ WEBHOOK_DISPATCHER: 'off' });
    s.own = await s.l.t.createTenant('Fuzzed');
    s.other = await s.l.t.createTenant('Other');
    const counts = {
      products: 2,
      metricsPerProduct: 3,
      freePricesPerMetric: 3,
      plans: 2,
      accounts: 3,
      customers: 2,
    };
    s.world = await seedOrganization(s.l.client, s.own, counts);
    s.foreign = await seedOrganization(s.l.client, s.other, { ...counts, freePricesPerMetric: 1 });
    await seedInvoices(s.l.t, s.own, s.world);
    await seedInvoices(s.l.t, s.other, s.foreign);
    s.secrets.push(
      s.own.apiKey,
      s.other.apiKey,
      ...s.world.accountNumbers,
      ...s.foreign.accountNumbers,
    );
    for (const who of [s.own, s.own, s.other]) {
      const reply = await s.l.client.request('POST', '/v0/webhookEndpoints', {
        headers: { authorization: who.auth.Authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ url: WEBHOOK_URL, enabledEvents: ['plan.*'] }),
      });
      (who === s.own ? s.endpoints : s.foreignEndpoints).push(reply.body.id as string);
    }
    process.stdout.write(
      `[reliability] fast-check seed=${SEED} runs per route=${RUNS} (RELIABILITY_SEED, RELIABILITY_FULL=1)\n`,
    );
  });

  afterAll(async () => {
    if (!s.l) return;
    const report = await checkInvariants(s.sql);
    reportFigures(suite, {
      ...s.figures,
      invariantChecks: report.checks,
      statuses: [...s.statuses]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([status, n]) => `${status}:${n}`)
        .join(','),
    });
    await s.l.t.close();
  });

  return s;
}

/** One test per route: fast-check's generated requests, each checked by `exercise`. */
export function describeRouteProperties(s: FuzzSuite, routes: FuzzRoute[]): void {
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
          route.ids ? pathIdArb(route.ids(), [...s.ownIds(), ...s.foreignIds()]) : fc.constant(''),
          route.query ? route.query() : queryArb([], fc.string(), 40),
          headersArb(withBody),
          body,
          async (pathId, query, choice, sent) => {
            // A list must not take path ids; an id route must not take the collection's empty id.
            const result = await exercise(s, route, route.ids ? pathId : '', query, choice, sent);
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
}

/** The last test of a suite: the database invariants hold, and no secret was shown. */
export function itKeepsInvariantsAndSecrets(s: FuzzSuite): void {
  it('holds every invariant afterwards, and neither logs nor responses show a secret', async () => {
    const report = await checkInvariants(s.sql);
    expect(report.violations).toEqual([]);
    expect(findSecrets(s.l.logs, s.secrets)).toEqual([]);
    expect(findSecrets(s.l.client.journal, s.secrets)).toEqual([]);
  });
}

/** Sends one generated request and returns why it broke a property, or [] when it did not. */
async function exercise(
  s: FuzzSuite,
  route: FuzzRoute,
  pathId: string,
  query: string,
  choice: HeaderChoice,
  body: { raw: string } | { json: unknown } | undefined,
): Promise<{ problems: string[]; path: string; sent: unknown; reply: Reply }> {
  const path = route.url.replace(':id', pathId) + query;
  const headers = { ...choice.headers };
  if (headers['idempotency-key'] === FRESH_KEY) headers['idempotency-key'] = randomUUID();
  if (choice.auth === 'own') headers.authorization = s.own.auth.Authorization;
  if (choice.auth === 'other') headers.authorization = s.other.auth.Authorization;
  const sent =
    body === undefined ? undefined : 'raw' in body ? body.raw : JSON.stringify(body.json);
  if (sent !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';

  const isWrite = route.method !== 'GET';
  const before = await snapshot(s.sql, !isWrite || !headers['idempotency-key']);
  const reply = await s.l.client.request(route.method, path, { headers, body: sent });
  s.figures.requests += 1;
  const outcome = `${reply.status}${reply.body?.code ? ' ' + reply.body.code : ''}${process.env.FUZZ_DEBUG && reply.body?.errors ? ' ' + route.method + route.url + ':' + reply.body.errors[0].field : ''}`;
  s.statuses.set(outcome, (s.statuses.get(outcome) ?? 0) + 1);
  const problems = replyProblems(reply, {
    sentIfNoneMatch: headers['if-none-match'] !== undefined,
    secrets: s.secrets,
    produces: route.produces,
  });
  const succeeded = reply.status >= 200 && reply.status < 300;
  if (!isWrite || !succeeded) {
    const after = await snapshot(s.sql, !isWrite || !headers['idempotency-key']);
    s.figures.snapshotsCompared += 1;
    if (isWrite) s.figures.refusedWrites += 1;
    if (after !== before) problems.push(`the database changed after ${reply.status}`);
  } else {
    s.figures.successfulWrites += 1;
    if (reply.headers['idempotent-replayed'] !== 'true') {
      problems.push(...(await readBackProblems(s, route, sent, reply, headers.authorization)));
    }
  }
  return { problems, path, sent, reply };
}

/** After a successful write: GET returns what the write answered, and sent fields are kept. */
async function readBackProblems(
  s: FuzzSuite,
  route: FuzzRoute,
  sent: string | undefined,
  reply: Reply,
  authorization: string,
): Promise<string[]> {
  const problems: string[] = [];
  const resource = reply.body as Record<string, any> | undefined;
  if (reply.status === 204 || !resource?.id || resource.deleted === true) return problems;
  const collection = route.url.split('/:id')[0];
  const read = await s.l.client.get(`${collection}/${resource.id}`, { authorization });
  s.figures.readBacks += 1;
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
