import type { BillingInterval } from '../plans/entities/plan.entity';

/** A billing period: [start, end), in UTC. */
export interface Period {
  start: Date;
  end: Date;
}

/** A period and its number k in the series of its anchor (period 0 starts at the anchor). */
export interface NumberedPeriod extends Period {
  index: number;
}

const DAY_MS = 86_400_000;
const MONTHS: Record<Exclude<BillingInterval, 'weekly'>, number> = {
  monthly: 1,
  quarterly: 3,
  yearly: 12,
};

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/**
 * `anchor` plus `months` calendar months in UTC: the anchor's time of day, and its day of the
 * month or the month's last day when the month is shorter (31 January + 1 month = 28 or 29
 * February; + 2 months = 31 March, never 28 March: always counted from the anchor).
 */
export function addMonths(anchor: Date, months: number): Date {
  const total = anchor.getUTCFullYear() * 12 + anchor.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  const timeOfDay =
    anchor.getTime() - Date.UTC(anchor.getUTCFullYear(), anchor.getUTCMonth(), anchor.getUTCDate());
  const result = new Date(Date.UTC(year, month, day) + timeOfDay);
  return result;
}

/**
 * Where period k of a series starts (docs/api.md §5.10): anchor + k·interval, computed from the
 * anchor, never from the previous period, so no drift however many periods pass.
 */
export function periodStart(anchor: Date, interval: BillingInterval, k: number): Date {
  if (interval === 'weekly') return new Date(anchor.getTime() + 7 * k * DAY_MS);
  return addMonths(anchor, MONTHS[interval] * k);
}

/** Period k of the series of `anchor`: [start(k), start(k + 1)). */
export function nthPeriod(anchor: Date, interval: BillingInterval, k: number): NumberedPeriod {
  return {
    index: k,
    start: periodStart(anchor, interval, k),
    end: periodStart(anchor, interval, k + 1),
  };
}

/**
 * The period that contains `at` (start ≤ at < end). An instant before the anchor is in no
 * period: the answer is then period 0, which starts after it.
 */
export function periodContaining(
  anchor: Date,
  interval: BillingInterval,
  at: Date,
): NumberedPeriod {
  if (at.getTime() < anchor.getTime()) return nthPeriod(anchor, interval, 0);
  let k: number;
  if (interval === 'weekly') {
    k = Math.floor((at.getTime() - anchor.getTime()) / (7 * DAY_MS));
  } else {
    const months =
      (at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 +
      (at.getUTCMonth() - anchor.getUTCMonth());
    k = Math.max(0, Math.floor(months / MONTHS[interval]));
  }
  // The estimate is off by at most one either way (month ends, time of day): settle it.
  while (k > 0 && periodStart(anchor, interval, k).getTime() > at.getTime()) k--;
  while (periodStart(anchor, interval, k + 1).getTime() <= at.getTime()) k++;
  return nthPeriod(anchor, interval, k);
}
