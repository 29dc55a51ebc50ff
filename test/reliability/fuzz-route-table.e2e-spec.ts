import fc from 'fast-check';
import { RouteTable } from '../../src/platform/route-table';
import { TEST_DIALECT } from '../helpers/test-database';
import { headersArb, queryArb } from '../helpers/reliability/arbitraries';
import { RUNS, fuzzSuite, itKeepsInvariantsAndSecrets } from '../helpers/reliability/fuzz';
import { fuzzRoutes } from '../helpers/reliability/fuzz-routes';
import { SEED } from '../helpers/reliability/settings';

/**
 * The routes of the route table against the fuzz suites (fuzz-*.e2e-spec.ts): every /v0 route
 * has generators, and the public routes take any query and headers.
 */
describe(`property-based requests to the route table (${TEST_DIALECT})`, () => {
  const s = fuzzSuite('fuzz route-table');
  const routes = Object.values(fuzzRoutes(s)).flat();

  it('covers every /v0 route of the route table', () => {
    const listed = s.l.t.app
      .get(RouteTable)
      .list()
      .filter((r) => r.url.startsWith('/v0/'))
      .map((r) => `${r.method} ${r.url}`)
      .sort();
    expect(routes.map((r) => `${r.method} ${r.url}`).sort()).toEqual(listed);
  });

  it('answers the public routes (health, readiness, docs) with any query and headers', async () => {
    const publicRoutes = s.l.t.app
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
          const reply = await s.l.client.request('GET', url + query, { headers: choice.headers });
          s.figures.requests += 1;
          expect(reply.status).toBeLessThan(500);
          expect(reply.headers['x-request-id']).toBeDefined();
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  itKeepsInvariantsAndSecrets(s);
});
