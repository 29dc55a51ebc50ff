import { TEST_DIALECT } from '../helpers/test-database';
import {
  describeRouteProperties,
  fuzzSuite,
  itKeepsInvariantsAndSecrets,
} from '../helpers/reliability/fuzz';
import { fuzzRoutes } from '../helpers/reliability/fuzz-routes';

// Each route's properties, and the setup they share: test/helpers/reliability/fuzz.ts.
describe(`property-based requests to prices and plans (${TEST_DIALECT})`, () => {
  const s = fuzzSuite('fuzz plans');
  describeRouteProperties(s, fuzzRoutes(s).plans);
  itKeepsInvariantsAndSecrets(s);
});
