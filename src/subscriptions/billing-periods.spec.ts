import { addMonths, nthPeriod, periodContaining, periodStart } from './billing-periods';
import type { BillingInterval } from '../plans/entities/plan.entity';

const d = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

describe('billing periods (docs/api.md §5.10)', () => {
  it.each<[string, BillingInterval, number, string]>([
    // The contract's examples.
    ['2027-01-31T10:00:00.000Z', 'monthly', 1, '2027-02-28T10:00:00.000Z'],
    ['2027-01-31T10:00:00.000Z', 'monthly', 2, '2027-03-31T10:00:00.000Z'],
    ['2027-01-31T10:00:00.000Z', 'monthly', 3, '2027-04-30T10:00:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 'yearly', 1, '2029-02-28T00:00:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 'yearly', 2, '2030-02-28T00:00:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 'yearly', 3, '2031-02-28T00:00:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 'yearly', 4, '2032-02-29T00:00:00.000Z'],
    // Month ends, leap years.
    ['2028-01-31T23:59:59.999Z', 'monthly', 1, '2028-02-29T23:59:59.999Z'],
    ['2027-01-30T00:00:00.000Z', 'monthly', 1, '2027-02-28T00:00:00.000Z'],
    ['2027-01-29T00:00:00.000Z', 'monthly', 1, '2027-02-28T00:00:00.000Z'],
    ['2028-01-29T00:00:00.000Z', 'monthly', 1, '2028-02-29T00:00:00.000Z'],
    ['2027-03-31T00:00:00.000Z', 'monthly', 1, '2027-04-30T00:00:00.000Z'],
    ['2027-12-31T12:00:00.000Z', 'monthly', 1, '2028-01-31T12:00:00.000Z'],
    ['2027-12-31T12:00:00.000Z', 'monthly', 2, '2028-02-29T12:00:00.000Z'],
    ['2027-08-31T00:00:00.000Z', 'monthly', 6, '2028-02-29T00:00:00.000Z'],
    ['2027-05-15T08:30:00.000Z', 'monthly', 0, '2027-05-15T08:30:00.000Z'],
    // Quarters.
    ['2027-11-30T00:00:00.000Z', 'quarterly', 1, '2028-02-29T00:00:00.000Z'],
    ['2027-11-30T00:00:00.000Z', 'quarterly', 2, '2028-05-30T00:00:00.000Z'],
    ['2027-01-31T00:00:00.000Z', 'quarterly', 1, '2027-04-30T00:00:00.000Z'],
    ['2027-01-31T00:00:00.000Z', 'quarterly', 4, '2028-01-31T00:00:00.000Z'],
    // Weeks: 7 days, across month and year ends and the days clocks change elsewhere.
    ['2027-12-29T10:00:00.000Z', 'weekly', 1, '2028-01-05T10:00:00.000Z'],
    ['2027-03-25T01:30:00.000Z', 'weekly', 1, '2027-04-01T01:30:00.000Z'],
    ['2028-02-26T00:00:00.000Z', 'weekly', 1, '2028-03-04T00:00:00.000Z'],
    // Years.
    ['2027-06-30T00:00:00.000Z', 'yearly', 1, '2028-06-30T00:00:00.000Z'],
  ])('from %s, %s period %i starts at %s', (anchor, interval, k, start) => {
    expect(iso(periodStart(d(anchor), interval, k))).toBe(start);
  });

  it('counts 100 consecutive monthly periods from the anchor, never from the last one', () => {
    const anchor = d('2027-01-31T10:00:00.000Z');
    let previousEnd = anchor;
    for (let k = 0; k < 100; k++) {
      const p = nthPeriod(anchor, 'monthly', k);
      expect(p.start).toEqual(previousEnd);
      expect(p.end.getTime()).toBeGreaterThan(p.start.getTime());
      const month = (0 + k) % 12;
      const year = 2027 + Math.floor(k / 12);
      const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
      expect(p.start.getUTCDate()).toBe(Math.min(31, last));
      expect(p.start.getUTCHours()).toBe(10);
      previousEnd = p.end;
    }
    expect(iso(periodStart(anchor, 'monthly', 100))).toBe('2035-05-31T10:00:00.000Z');
  });

  it.each<BillingInterval>(['weekly', 'monthly', 'quarterly', 'yearly'])(
    'joins 100 %s periods end to start, each found by its own instants',
    (interval) => {
      const anchor = d('2028-02-29T23:15:00.000Z');
      for (let k = 0; k < 100; k++) {
        const p = nthPeriod(anchor, interval, k);
        expect(nthPeriod(anchor, interval, k + 1).start).toEqual(p.end);
        expect(periodContaining(anchor, interval, p.start).index).toBe(k);
        expect(periodContaining(anchor, interval, new Date(p.end.getTime() - 1)).index).toBe(k);
        expect(periodContaining(anchor, interval, p.end).index).toBe(k + 1);
      }
    },
  );

  it.each([
    ['the anchor itself', '2027-01-31T10:00:00.000Z', 0],
    ['one millisecond before the first end', '2027-02-28T09:59:59.999Z', 0],
    ['the first end exactly', '2027-02-28T10:00:00.000Z', 1],
    ['the 28th after the second start, before its time', '2027-03-31T09:59:59.999Z', 1],
    ['the second end exactly', '2027-03-31T10:00:00.000Z', 2],
    ['a year later, on the boundary', '2028-01-31T10:00:00.000Z', 12],
  ])('puts %s in the right monthly period', (_what, at, k) => {
    const p = periodContaining(d('2027-01-31T10:00:00.000Z'), 'monthly', d(at));
    expect(p.index).toBe(k);
    expect(p.start.getTime()).toBeLessThanOrEqual(d(at).getTime());
    expect(p.end.getTime()).toBeGreaterThan(d(at).getTime());
  });

  it('answers period 0 for an instant before the anchor', () => {
    const anchor = d('2027-01-31T10:00:00.000Z');
    expect(periodContaining(anchor, 'monthly', d('2026-12-01T00:00:00.000Z')).index).toBe(0);
  });

  it('adds months backwards too (a backdated anchor)', () => {
    expect(iso(addMonths(d('2027-03-31T00:00:00.000Z'), -1))).toBe('2027-02-28T00:00:00.000Z');
  });
});
