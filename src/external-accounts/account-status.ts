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
 * Whether a PATCH submits the account for verification again (docs/api.md §5.5): a change of
 * the holder's name or type always does (the details verified are no longer the account's, and
 * a verification of the earlier ones still running is dropped); `status: "new"` does for a
 * verified or errored account, and is a no-op on a pending one, which is already waiting.
 */
export function resubmits(
  current: AccountStatus,
  request: { statusNew: boolean; holderChanged: boolean },
): boolean {
  return request.holderChanged || (request.statusNew && current !== 'pending');
}

/** True when `patch` changes what verification judges: the holder's name or type. */
export function holderChanges(
  account: { accountHolderName: string; accountHolderType: string },
  patch: { accountHolderName?: string | null; accountHolderType?: string | null },
): boolean {
  return (
    (patch.accountHolderName != null && patch.accountHolderName !== account.accountHolderName) ||
    (patch.accountHolderType != null && patch.accountHolderType !== account.accountHolderType)
  );
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
