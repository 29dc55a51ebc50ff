import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Tenant } from '../common/tenant';
import { Database } from '../database/database';
import { EventRange, UsageEventsRepository, ValueRow } from './usage-events.repository';
import {
  UsageDecimal,
  canonicalDecimal,
  decimalValue,
  maxDecimal,
  sumDecimals,
  uniqueKey,
} from './usage-values';

/** What the aggregation needs of a billable metric (docs/api.md §5.2). */
export interface MeteredMetric {
  id: string;
  aggregation: 'COUNT' | 'SUM' | 'MAX' | 'UNIQUE_COUNT' | 'LATEST';
  valueProperty: string | null;
  eventType: string | null;
}

/** One customer's usage of one metric over [from, to). */
export interface AggregationQuery {
  customerId: string;
  metric: MeteredMetric;
  from: Date;
  to: Date;
}

export type WindowSize = 'hour' | 'day';

export interface UsageWindow {
  windowStart: Date;
  windowEnd: Date;
  value: string;
}

/** What a `dynamic` price charges (docs/api.md §5.12), before its minimum and maximum. */
export interface DynamicUsage {
  /** Σ value × the event's own `data.unitPrice`, over the events that have a valid one. */
  amount: string;
  /** The events without a valid `data.unitPrice` (a decimal of docs/api.md §1)... */
  withoutUnitPrice: number;
  /** ...and the sum of their values (each 1 for COUNT and UNIQUE_COUNT). */
  valueWithoutUnitPrice: string;
}

/** The event type a metric counts: its `eventType`, else its own id (docs/api.md §5.11). */
export const eventTypeOf = (metric: MeteredMetric): string => metric.eventType ?? metric.id;

/**
 * How usage is counted, in one place: the meter (GET /v0/billableMetrics/{id}/meter) and the
 * invoices count with this code (docs/api.md §5.11). Every read is a range of one customer's
 * events of one type on ix_usage_events_org_mode_customer_type_ts, so its cost follows those
 * events, not the table. Results are exact decimal strings: counts in SQL; SUM and MAX in
 * PostgreSQL's numeric, on SQLite (whose numbers are doubles) with decimal.js over the values.
 * Each method runs on the caller's entity manager (an invoice's transaction, or a read).
 */
@Injectable()
export class UsageAggregator {
  constructor(
    private readonly db: Database,
    private readonly events: UsageEventsRepository,
  ) {}

  /** The metric's aggregation of the customer's events with from ≤ timestamp < to. */
  async aggregate(m: EntityManager, tenant: Tenant, q: AggregationQuery): Promise<string> {
    const range = rangeOf(tenant, q);
    const { aggregation, valueProperty } = q.metric;
    if (aggregation === 'COUNT' || valueProperty === null) {
      return String(await this.events.count(m, range));
    }
    switch (aggregation) {
      case 'UNIQUE_COUNT':
        return String(await this.events.countDistinct(m, range, valueProperty));
      case 'LATEST':
        return decimalValue(await this.events.latest(m, range, valueProperty)) ?? '0';
      case 'SUM':
      case 'MAX':
        if (this.db.isPostgres) {
          const fn = aggregation === 'SUM' ? 'SUM' : 'MAX';
          const value = await this.events.numericAggregate(m, range, fn, valueProperty);
          return value === null ? '0' : canonicalDecimal(value);
        }
        return fold(aggregation, await this.events.values(m, range, valueProperty));
    }
  }

  /**
   * The aggregation over each window of `windowSize` (aligned to UTC) that overlaps [from, to),
   * cut to that range, oldest first; every window is listed, those without events included.
   */
  async windows(
    m: EntityManager,
    tenant: Tenant,
    q: AggregationQuery,
    windowSize: WindowSize,
  ): Promise<UsageWindow[]> {
    const rows = await this.events.values(m, rangeOf(tenant, q), q.metric.valueProperty);
    const windows: UsageWindow[] = [];
    let next = 0;
    for (let start = q.from; start < q.to;) {
      const end = minDate(windowEndAfter(start, windowSize), q.to);
      const first = next;
      while (next < rows.length && rows[next].timestamp < end) next++;
      windows.push({
        windowStart: start,
        windowEnd: end,
        value: fold(q.metric.aggregation, rows.slice(first, next)),
      });
      start = end;
    }
    return windows;
  }

  /**
   * A `dynamic` price's usage (docs/api.md §5.12): Σ value × `data.unitPrice` over the events
   * that have a valid unit price, and the count and total value of those without one (which the
   * price charges at its minPrice). Exact, with decimal.js.
   */
  async dynamic(m: EntityManager, tenant: Tenant, q: AggregationQuery): Promise<DynamicUsage> {
    const counted = q.metric.aggregation === 'COUNT' || q.metric.aggregation === 'UNIQUE_COUNT';
    const rows = await this.events.values(
      m,
      rangeOf(tenant, q),
      counted ? null : q.metric.valueProperty,
      true,
    );
    let amount = new UsageDecimal(0);
    let without = 0;
    let valueWithout = new UsageDecimal(0);
    for (const row of rows) {
      const value = counted ? '1' : decimalValue(row.value);
      if (value === undefined) continue;
      const unitPrice = decimalValue(row.unitPrice);
      if (unitPrice === undefined) {
        without++;
        valueWithout = valueWithout.plus(value);
      } else {
        amount = amount.plus(new UsageDecimal(value).times(unitPrice));
      }
    }
    return {
      amount: amount.toFixed(),
      withoutUnitPrice: without,
      valueWithoutUnitPrice: valueWithout.toFixed(),
    };
  }
}

function rangeOf(tenant: Tenant, q: AggregationQuery): EventRange {
  return {
    tenant,
    customerId: q.customerId,
    type: eventTypeOf(q.metric),
    from: q.from,
    to: q.to,
  };
}

/**
 * An aggregation over rows already read (oldest first): the same rules as the SQL of
 * UsageAggregator.aggregate. Values that are not valid for the aggregation are left out (only
 * events stored before their metric existed can hold one: ingestion checks the others).
 */
export function fold(aggregation: MeteredMetric['aggregation'], rows: readonly ValueRow[]): string {
  switch (aggregation) {
    case 'COUNT':
      return String(rows.length);
    case 'UNIQUE_COUNT': {
      const seen = new Set<string>();
      for (const row of rows) {
        const key = uniqueKey(row.value);
        if (key !== undefined) seen.add(key);
      }
      return String(seen.size);
    }
    case 'LATEST': {
      for (let i = rows.length - 1; i >= 0; i--) {
        if (rows[i].value !== null && rows[i].value !== undefined) {
          return decimalValue(rows[i].value) ?? '0';
        }
      }
      return '0';
    }
    case 'SUM':
    case 'MAX': {
      const values = decimals(rows);
      return aggregation === 'SUM' ? sumDecimals(values) : maxDecimal(values);
    }
  }
}

function* decimals(rows: readonly ValueRow[]): Generator<string> {
  for (const row of rows) {
    const value = decimalValue(row.value);
    if (value !== undefined) yield value;
  }
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The end of the UTC hour or day that `start` falls in. */
export function windowEndAfter(start: Date, size: WindowSize): Date {
  const unit = size === 'hour' ? HOUR_MS : DAY_MS;
  return new Date(Math.floor(start.getTime() / unit) * unit + unit);
}

const minDate = (a: Date, b: Date): Date => (a < b ? a : b);
