import { TEST_DIALECT } from '../helpers/test-database';
import {
  describeRouteProperties,
  fuzzSuite,
  itKeepsInvariantsAndSecrets,
} from '../helpers/reliability/fuzz';
import { fuzzRoutes } from '../helpers/reliability/fuzz-routes';

// Each route's properties, and the setup they share: test/helpers/reliability/fuzz.ts.
describe(`property-based requests to customers, subscriptions, usage and invoices (${TEST_DIALECT})`, () => {
  const s = fuzzSuite('fuzz billing');
  describeRouteProperties(s, fuzzRoutes(s).billing);
  itKeepsInvariantsAndSecrets(s);
});
