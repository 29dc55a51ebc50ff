import { ConflictError, ValidationFailedError } from '../common/errors';

/** 409: the customer holds a subscription that prices one of the same billable metrics. */
export class MetricAlreadySubscribedError extends ConflictError {
  constructor(metricId: string, subscriptionId: string) {
    super(
      'METRIC_ALREADY_SUBSCRIBED',
      `The customer's subscription ${subscriptionId} already prices billable metric ${metricId}: every usage event is billed on one subscription; terminate that one or choose a plan without this metric`,
    );
  }
}

/** 409: a terminated subscription no longer changes. */
export class SubscriptionTerminatedError extends ConflictError {
  constructor(id: string) {
    super(
      'SUBSCRIPTION_TERMINATED',
      `Subscription ${id} is terminated and can no longer change; create a new subscription`,
    );
  }
}

/** 400: a plan change to a plan of another currency. */
export function currencyMismatch(from: string, to: string): ValidationFailedError {
  return ValidationFailedError.field(
    'planId',
    'currency_mismatch',
    `the new plan bills in ${to} but the subscription in ${from}: choose a plan in ${from}`,
    'CURRENCY_MISMATCH',
  );
}

/** 400: startedAt more than 90 days before now. */
export function backdatedTooFar(limit: Date): ValidationFailedError {
  return ValidationFailedError.field(
    'startedAt',
    'out_of_range',
    `may be at most 90 days in the past (not before ${limit.toISOString()})`,
  );
}
