import { ApiError, ConflictError, FieldError } from '../common/errors';

/** 409: a price is already in another live plan (or, on DELETE, in a live plan at all). */
export class PriceInUseError extends ApiError {
  constructor(message: string, errors?: FieldError[]) {
    super('conflict', message, { code: 'PRICE_IN_USE', errors });
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
