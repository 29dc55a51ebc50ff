import { ApiError, ConflictError, ValidationFailedError } from '../common/errors';

/** 409: another customer of the organization and mode has this externalId. */
export class DuplicateCustomerError extends ConflictError {
  constructor(externalId: string) {
    super(
      'DUPLICATE_CUSTOMER',
      `Another customer already has externalId '${externalId}': retrieve it with GET /v0/customers?externalId=…`,
    );
  }
}

/** 409: a customer with an active or pending subscription is not deleted. */
export class CustomerHasSubscriptionsError extends ConflictError {
  constructor(id: string) {
    super(
      'CUSTOMER_HAS_SUBSCRIPTIONS',
      `Customer ${id} has an active or pending subscription: terminate it first (POST /v0/subscriptions/{id}/termination with at "now")`,
    );
  }
}

/** 409: a test clock holds at most 100 customers. */
export class TestClockFullError extends ConflictError {
  constructor(id: string, max: number) {
    super(
      'TEST_CLOCK_FULL',
      `Test clock ${id} already holds ${max} customers; create another clock`,
    );
  }
}

/** 409: a test clock with customers is not deleted. */
export class TestClockInUseError extends ConflictError {
  constructor(id: string) {
    super(
      'TEST_CLOCK_IN_USE',
      `Test clock ${id} still has customers: delete them first (DELETE /v0/customers/{id})`,
    );
  }
}

/** 400: a customer named in a body is not one of the caller's (or was deleted). */
export function customerNotFound(field: string, id: string): ValidationFailedError {
  return ValidationFailedError.field(
    field,
    'customer_not_found',
    `no customer '${id}' in your organization (in this mode)`,
    'CUSTOMER_NOT_FOUND',
  );
}

/** 400: a test clock named in a body is not one of the caller's (or was deleted). */
export function testClockNotFound(id: string): ValidationFailedError {
  return ValidationFailedError.field(
    'testClockId',
    'test_clock_not_found',
    `no test clock '${id}' in your organization (test mode)`,
    'TEST_CLOCK_NOT_FOUND',
  );
}

/** 400: test clocks exist in test mode only. */
export function testClockInLiveMode(): ValidationFailedError {
  return ValidationFailedError.field(
    'testClockId',
    'field_not_allowed',
    'test clocks exist in test mode only: use a test-mode API key, or leave testClockId out',
  );
}

/** 404: a live key creating or listing test clocks (they exist in test mode only). */
export function testClocksInLiveMode(): ApiError {
  return new ApiError('not_found', 'Test clocks exist in test mode only: use a test-mode API key', {
    code: 'ROUTE_NOT_FOUND',
  });
}
