import {
  AccountStatus,
  ERRORED_BY_REQUEST_REASON,
  InvalidStatusTransitionError,
  StatusRequest,
  StatusState,
  applyStatusRequest,
} from './account-status';

const pending: StatusState = { status: 'pending', statusReason: null };
const verified: StatusState = { status: 'verified', statusReason: null };
const errored: StatusState = { status: 'errored', statusReason: ERRORED_BY_REQUEST_REASON };

describe('applyStatusRequest', () => {
  it.each<[string, StatusState, StatusRequest, StatusState]>([
    ['pending + new -> pending (no-op: already pending)', pending, 'new', pending],
    ['verified + new -> pending (resubmits a verified account)', verified, 'new', pending],
    [
      'errored + new -> pending (resubmits an errored account and clears the reason)',
      errored,
      'new',
      pending,
    ],
    ['pending + verified -> verified (verification succeeded)', pending, 'verified', verified],
    ['verified + verified -> verified (no-op: already verified)', verified, 'verified', verified],
    ['pending + errored -> errored (verification failed)', pending, 'errored', errored],
    [
      'verified + errored -> errored (a verified account stopped working)',
      verified,
      'errored',
      errored,
    ],
    ['errored + errored -> errored (no-op: already errored)', errored, 'errored', errored],
  ])('%s', (_label, current, requested, expected) => {
    expect(applyStatusRequest(current, requested)).toEqual(expected);
  });

  it('keeps the current reason on a no-op errored -> errored', () => {
    const custom: StatusState = { status: 'errored', statusReason: 'Payout returned: R03' };
    expect(applyStatusRequest(custom, 'errored')).toBe(custom);
  });

  it.each<[string, StatusState, StatusRequest, AccountStatus, AccountStatus]>([
    ['errored + verified', errored, 'verified', 'errored', 'verified'],
  ])('refuses %s with 409 naming both states', (_label, current, requested, from, to) => {
    let thrown: unknown;
    try {
      applyStatusRequest(current, requested);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(InvalidStatusTransitionError);
    const error = thrown as InvalidStatusTransitionError;
    expect(error.status).toBe(409);
    expect(error.code).toBe('INVALID_STATUS_TRANSITION');
    expect(error.message).toContain(`"${from}"`);
    expect(error.message).toContain(`"${to}"`);
    expect(error.message).toContain('"new"');
  });

  it('covers every (status, request) pair exactly once above', () => {
    // 3 statuses x 3 requests = 9 cases: 8 allowed (3 of them no-ops) and 1 refused.
    const outcomes = (['pending', 'verified', 'errored'] as const).flatMap((status) =>
      (['new', 'verified', 'errored'] as const).map((requested) => {
        try {
          return `${status}+${requested}=${applyStatusRequest({ status, statusReason: null }, requested).status}`;
        } catch {
          return `${status}+${requested}=409`;
        }
      }),
    );
    expect(outcomes).toEqual([
      'pending+new=pending',
      'pending+verified=verified',
      'pending+errored=errored',
      'verified+new=pending',
      'verified+verified=verified',
      'verified+errored=errored',
      'errored+new=pending',
      'errored+verified=409',
      'errored+errored=errored',
    ]);
  });
});
