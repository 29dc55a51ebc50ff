import { ApiError, ConflictError, FieldError } from '../common/errors';

/** 409: a price is already in another live plan (or, on DELETE, in a live plan at all). */
export class PriceInUseError extends ApiError {
  constructor(message: string, errors?: FieldError[]) {
    super('conflict', message, { code: 'PRICE_IN_USE', errors });
  }
}

/**
 * 409: a plan with an active or pending subscription keeps its billing terms and its prices
 * (docs/api.md §5.3, §5.4); its name, invoiceDisplayName and description still change.
 */
export class PlanInUseError extends ConflictError {
  constructor(planId: string, what: string) {
    super(
      'PLAN_IN_USE',
      `Plan ${planId} has active or pending subscriptions, so ${what}: create a new plan and move the subscriptions to it (PATCH /v0/subscriptions/{id} with planId)`,
    );
  }
}

/** 409: a deleted plan no longer changes. */
export class PlanDeletedError extends ConflictError {
  constructor(id: string) {
    super('PLAN_DELETED', `Plan ${id} was deleted and can no longer be changed; create a new plan`);
  }
}

/** 409: a deleted price no longer changes. */
export class PriceDeletedError extends ConflictError {
  constructor(id: string) {
    super(
      'PRICE_DELETED',
      `Price ${id} was deleted and can no longer be changed; create a new price`,
    );
  }
}
