import {
  ACCOUNT_STATUSES,
  isFailureReason,
  resubmits,
  statusAfter,
  VERIFICATION_FAILURE_REASONS,
} from './account-status';

describe('resubmits (PATCH status "new")', () => {
  it.each([
    ['pending', false],
    ['verified', true],
    ['errored', true],
  ] as const)('%s -> %s', (status, expected) => {
    expect(resubmits(status)).toBe(expected);
  });

  it('covers every status', () => {
    expect(ACCOUNT_STATUSES.map((s) => `${s}=${resubmits(s)}`)).toEqual([
      'pending=false',
      'verified=true',
      'errored=true',
    ]);
  });
});

describe('statusAfter', () => {
  it('verified clears the reason', () => {
    expect(statusAfter({ status: 'verified' })).toEqual({ status: 'verified', statusReason: null });
  });

  it.each(VERIFICATION_FAILURE_REASONS)('errored keeps the reason %s', (reason) => {
    expect(statusAfter({ status: 'errored', reason })).toEqual({
      status: 'errored',
      statusReason: reason,
    });
  });
});

describe('isFailureReason', () => {
  it.each([
    ['no_account', true],
    ['account_closed', true],
    ['invalid_account_holder', true],
    ['rejected', true],
    ['Rejected', false],
    ['closed', false],
    ['', false],
  ])('%j -> %s', (value, expected) => {
    expect(isFailureReason(value)).toBe(expected);
  });
});
