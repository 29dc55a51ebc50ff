import { ApiError } from '../common/errors';
import { checkEnabledEvents } from './enabled-events';

function fields(list: unknown[]): [string, string][] {
  try {
    checkEnabledEvents(list);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).category).toBe('validation_error');
    return ((err as ApiError).errors ?? []).map((e) => [e.field, e.code]);
  }
  throw new Error('expected a failure');
}

describe('checkEnabledEvents', () => {
  it('returns a list of event types, prefixes and "*" as it is', () => {
    expect(checkEnabledEvents(['plan.*', 'price.updated', '*'])).toEqual([
      'plan.*',
      'price.updated',
      '*',
    ]);
  });

  it.each<[string, unknown[], [string, string][]]>([
    ['an unknown type', ['foo.bar'], [['enabledEvents[0]', 'invalid_value']]],
    ['a number', ['*', 5], [['enabledEvents[1]', 'invalid_type']]],
    ['null', [null], [['enabledEvents[0]', 'invalid_type']]],
    ['a nested list', [['plan.*']], [['enabledEvents[0]', 'invalid_type']]],
    [
      'the same entry twice (the second)',
      ['plan.*', '*', 'plan.*'],
      [['enabledEvents[2]', 'duplicate_item']],
    ],
    [
      'every problem at once',
      ['x', 'plan.*', 1, 'plan.*'],
      [
        ['enabledEvents[0]', 'invalid_value'],
        ['enabledEvents[2]', 'invalid_type'],
        ['enabledEvents[3]', 'duplicate_item'],
      ],
    ],
  ])('names the entry of %s', (_label, list, expected) => {
    expect(fields(list)).toEqual(expected);
  });
});
