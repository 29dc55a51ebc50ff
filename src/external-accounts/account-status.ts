import { ConflictError } from '../common/errors';

/** What a response shows (docs/api.md §5.5). A new account starts `pending`. */
export const ACCOUNT_STATUSES = ['pending', 'verified', 'errored'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** What a PATCH may send as `status` (the seed's request vocabulary; `pending` is not one). */
export const STATUS_REQUESTS = ['new', 'verified', 'errored'] as const;
export type StatusRequest = (typeof STATUS_REQUESTS)[number];

/** The statusReason of an account a client marked errored (the only reason this API sets). */
export const ERRORED_BY_REQUEST_REASON = 'Marked errored through the API';

/** Each request: the status it leads to and the statuses it may be sent from. */
export const STATUS_TRANSITIONS: Record<
  StatusRequest,
  { to: AccountStatus; from: readonly AccountStatus[] }
> = {
  new: { to: 'pending', from: ['pending', 'verified', 'errored'] },
  verified: { to: 'verified', from: ['pending'] },
  errored: { to: 'errored', from: ['pending', 'verified'] },
};

export interface StatusState {
  status: AccountStatus;
  statusReason: string | null;
}

export class InvalidStatusTransitionError extends ConflictError {
  constructor(from: AccountStatus, to: AccountStatus) {
    const hint = to === 'verified' ? '; send status "new" to submit it for verification again' : '';
    super(
      'INVALID_STATUS_TRANSITION',
      `An external bank account cannot move from "${from}" to "${to}"${hint}`,
    );
  }
}

/**
 * The status and statusReason after a PATCH `status`. A move to the status the account already
 * has changes nothing (so `new` while pending, or `errored` while errored, keep the reason);
 * any other move not in STATUS_TRANSITIONS is a 409 naming both states.
 */
export function applyStatusRequest(current: StatusState, requested: StatusRequest): StatusState {
  const { to, from } = STATUS_TRANSITIONS[requested];
  if (to === current.status) return current;
  if (!from.includes(current.status)) throw new InvalidStatusTransitionError(current.status, to);
  return { status: to, statusReason: to === 'errored' ? ERRORED_BY_REQUEST_REASON : null };
}
