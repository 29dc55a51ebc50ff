import { ApiError, ConflictError } from '../common/errors';

/** 409: the same account (country, routing and account number) twice in one organization. */
export class DuplicateExternalAccountError extends ConflictError {
  constructor() {
    super(
      'DUPLICATE_EXTERNAL_ACCOUNT',
      'Your organization already has an external account with this country, routing number and account number',
    );
  }
}

/** 404 for the operator: a test-mode account is decided by the sandbox, never by a person. */
export class TestModeAccountError extends ApiError {
  constructor(id: string) {
    super(
      'not_found',
      `No live external bank account '${id}' waits for an operator: it is a test-mode account, ` +
        'and test-mode accounts are verified by the sandbox, never by an operator',
      { code: 'RESOURCE_NOT_FOUND' },
    );
  }
}

/** 409 for the operator: an automatic verifier decides this live account. */
export class NotForOperatorError extends ConflictError {
  constructor(id: string, verifier: string) {
    super(
      'NOT_DECIDED_BY_OPERATOR',
      `External bank account '${id}' is verified by ${verifier}, not by an operator`,
    );
  }
}

/** 409 for the operator: only a pending account waits for a decision. */
export class NotPendingError extends ConflictError {
  constructor(id: string, status: string) {
    super(
      'ACCOUNT_NOT_PENDING',
      `External bank account '${id}' is ${status}, not pending: only a pending account waits ` +
        'for a decision (its owner submits it again with PATCH status "new")',
    );
  }
}

/**
 * 409 for the operator: the account changed (its holder, its status) since the operator read it
 * with `external-accounts:pending`, so a decision would be about details never shown.
 */
export class AccountChangedError extends ConflictError {
  constructor(id: string) {
    super(
      'ACCOUNT_CHANGED',
      `External bank account '${id}' changed since its etag was read: list it again with ` +
        'external-accounts:pending and decide on what it shows now',
    );
  }
}
