import {
  ACCOUNT_STATUSES,
  holderChanges,
  isFailureReason,
  resubmits,
  statusAfter,
  VERIFICATION_FAILURE_REASONS,
} from './account-status';

describe('resubmits: what a PATCH submits for verification again', () => {
  it.each([
    // status, PATCH status "new", holder changed → a new submission
    ['pending', false, false, false],
    ['pending', true, false, false],
    ['pending', false, true, true],
    ['verified', false, false, false],
    ['verified', true, false, true],
    ['verified', false, true, true],
    ['errored', false, false, false],
    ['errored', true, false, true],
    ['errored', false, true, true],
  ] as const)(
    '%s, status new %s, holder changed %s -> %s',
    (status, statusNew, holderChanged, expected) => {
      expect(resubmits(status, { statusNew, holderChanged })).toBe(expected);
    },
  );

  it('covers every status', () => {
    expect(ACCOUNT_STATUSES).toEqual(['pending', 'verified', 'errored']);
  });
});

describe('holderChanges', () => {
  const account = { accountHolderName: 'Alice Holder', accountHolderType: 'individual' };
  it.each([
    [{}, false],
    [{ accountHolderName: 'Alice Holder' }, false],
    [{ accountHolderName: null, accountHolderType: null }, false],
    [{ accountHolderName: 'Eve After Verification' }, true],
    [{ accountHolderType: 'company' }, true],
    [{ accountHolderType: 'individual', accountHolderName: 'Alice Holder' }, false],
  ])('%j -> %s', (patch, expected) => {
    expect(holderChanges(account, patch)).toBe(expected);
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
