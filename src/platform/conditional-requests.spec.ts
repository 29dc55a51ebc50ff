import { isSingleResource, matchesIfNoneMatch } from './conditional-requests';

describe('isSingleResource', () => {
  it.each([
    [{ id: 'plan_1', object: 'plan' }, true],
    [{ id: 'eba_1', object: 'externalBankAccount', deleted: true }, true],
    [{ data: [], pagination: { limit: 10, offset: 0, total: 0 } }, false],
    [{ id: 'x' }, false],
    [{ id: 1, object: 'plan' }, false],
    [[{ id: 'plan_1', object: 'plan' }], false],
    [null, false],
    ['plan', false],
  ])('%j -> %s', (body, expected) => {
    expect(isSingleResource(body)).toBe(expected);
  });
});

describe('matchesIfNoneMatch', () => {
  const tag = '"abc"';

  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"zzz", "abc"', true],
    ['*', true],
    ['"zzz"', false],
    ['abc', false],
    [undefined, false],
    ['', false],
  ])('%j -> %s', (header, expected) => {
    expect(matchesIfNoneMatch(header, tag)).toBe(expected);
  });
});
