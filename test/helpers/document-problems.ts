import { pendingDocumentProblems } from './openapi-check';

/**
 * Jest's setupFilesAfterEnv for the end-to-end suites: a test fails when a client that records
 * instead of throwing (test/helpers/reliability/http.ts) received a response that does not match
 * the served OpenAPI document during it.
 */
afterEach(() => {
  const problems = pendingDocumentProblems.splice(0);
  if (problems.length > 0) {
    throw new Error(
      `${problems.length} response(s) did not match the OpenAPI document:\n${problems.slice(0, 5).join('\n')}`,
    );
  }
});
