import { InexactNumber } from '../common/json-numbers';
import { parseUtcTimestamp, readUsageEvents } from './usage-event-input';

const event = (overrides: Record<string, unknown> = {}) => ({
  idempotencyKey: 'k1',
  type: 'api.call',
  customerId: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0ABC',
  ...overrides,
});

const fields = (body: unknown) => readUsageEvents(body).errors.map((e) => `${e.field} ${e.code}`);

describe('readUsageEvents', () => {
  it('reads a valid event, data defaulting to {} and timestamp to the clock', () => {
    const { events, errors } = readUsageEvents({ events: [event()] });
    expect(errors).toEqual([]);
    expect(events[0]).toMatchObject({ index: 0, data: {}, timestamp: null });
  });

  it('names every problem of every event by its path', () => {
    expect(
      fields({
        events: [
          event({ idempotencyKey: '' }),
          event({ type: 'a b', extra: 1 }),
          event({ externalCustomerId: 'x' }),
          event({ customerId: undefined }),
          event({ timestamp: '2026-01-31T12:00:00.000+01:00' }),
          event({ data: [] }),
          'nope',
        ],
      }),
    ).toEqual([
      'events[0].idempotencyKey invalid_length',
      'events[1].extra unknown_field',
      'events[1].type invalid_format',
      'events[2].externalCustomerId field_not_allowed',
      'events[3].customerId required',
      'events[4].timestamp invalid_timestamp',
      'events[5].data invalid_type',
      'events[6] invalid_type',
    ]);
  });

  it('takes 1,000 events and refuses 1,001 or none', () => {
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => event({ idempotencyKey: `k${i}` }));
    expect(readUsageEvents({ events: many(1000) }).errors).toEqual([]);
    expect(fields({ events: many(1001) })).toEqual(['events too_many_items']);
    expect(fields({ events: [] })).toEqual(['events too_few_items']);
    expect(fields({ events: [], more: 1 })).toEqual(['more unknown_field', 'events too_few_items']);
  });

  it('counts the key and the type in characters', () => {
    expect(fields({ events: [event({ idempotencyKey: '😀'.repeat(255) })] })).toEqual([]);
    expect(fields({ events: [event({ idempotencyKey: 'k'.repeat(256) })] })).toEqual([
      'events[0].idempotencyKey invalid_length',
    ]);
    expect(fields({ events: [event({ type: 't'.repeat(101) })] })).toEqual([
      'events[0].type invalid_format',
    ]);
  });

  it('takes data of 4 KB and refuses 4 KB + 1', () => {
    const data = (n: number) => ({ s: 'x'.repeat(n - '{"s":""}'.length) });
    expect(JSON.stringify(data(4096))).toHaveLength(4096);
    expect(fields({ events: [event({ data: data(4096) })] })).toEqual([]);
    expect(fields({ events: [event({ data: data(4097) })] })).toEqual(['events[0].data too_large']);
  });

  it('takes data nested 8 deep and refuses 9', () => {
    const nested = (levels: number): Record<string, unknown> =>
      levels === 1 ? {} : { a: nested(levels - 1) };
    expect(fields({ events: [event({ data: nested(8) })] })).toEqual([]);
    expect(fields({ events: [event({ data: nested(9) })] })).toEqual([
      'events[0].data.a.a.a.a.a.a.a.a too_deep',
    ]);
  });

  it('refuses a number JSON cannot carry exactly, at its path', () => {
    const data = { n: [1, new InexactNumber('12345678901234567890123')] };
    expect(fields({ events: [event({ data })] })).toEqual(['events[0].data.n[1] inexact_number']);
  });
});

describe('parseUtcTimestamp', () => {
  it.each([
    ['2026-01-31T12:00:00.000Z', true],
    ['2026-01-31T12:00:00Z', true],
    ['2026-01-31T12:00:00.5Z', true],
    ['2026-01-31T12:00:00.000', false],
    ['2026-01-31T12:00:00.000+00:00', false],
    ['2026-01-31 12:00:00Z', false],
    ['2027-02-29T00:00:00Z', false],
    ['2028-02-29T00:00:00Z', true],
    ['2026-01-31T24:00:00Z', false],
  ])('%s → %p', (text, ok) => {
    expect(parseUtcTimestamp(text) !== undefined).toBe(ok);
  });
});
