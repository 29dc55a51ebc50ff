/**
 * The status of an external bank account (docs/api.md §5.5, docs/verification.md). A client never
 * sets it: the verification process does. A client may only submit an account again.
 */

/** What a response shows. A new account starts `pending`. */
export const ACCOUNT_STATUSES = ['pending', 'verified', 'errored'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** What a PATCH may send as `status`: the seed's `new`, "submit it for verification again". */
export const STATUS_REQUESTS = ['new'] as const;
export type StatusRequest = (typeof STATUS_REQUESTS)[number];

/** Why verification failed: the `statusReason` of an `errored` account. */
export const VERIFICATION_FAILURE_REASONS = [
  'no_account',
  'account_closed',
  'invalid_account_holder',
  'rejected',
] as const;
export type VerificationFailureReason = (typeof VERIFICATION_FAILURE_REASONS)[number];

/** How one verification ends. */
export type VerificationOutcome =
  { status: 'verified' } | { status: 'errored'; reason: VerificationFailureReason };

export function isFailureReason(value: string): value is VerificationFailureReason {
  return (VERIFICATION_FAILURE_REASONS as readonly string[]).includes(value);
}

/**
 * PATCH `status: "new"`: a verified or errored account goes back to `pending` for a new
 * verification; a pending one is already waiting, so nothing changes (a no-op).
 */
export function resubmits(current: AccountStatus): boolean {
  return current !== 'pending';
}

/** The status and statusReason an outcome leaves. */
export function statusAfter(outcome: VerificationOutcome): {
  status: AccountStatus;
  statusReason: VerificationFailureReason | null;
} {
  return outcome.status === 'verified'
    ? { status: 'verified', statusReason: null }
    : { status: 'errored', statusReason: outcome.reason };
}
