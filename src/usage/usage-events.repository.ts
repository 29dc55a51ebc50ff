import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { DECIMAL_PATTERN } from '../common/money/decimal';
import { Tenant } from '../common/tenant';
import { Database } from '../database/database';
import { UsageEvent } from './entities/usage-event.entity';
import { pathOf } from './usage-values';

/** Rows a deduplicating INSERT carries per statement (9 parameters each). */
const ROWS_PER_INSERT = 250;

/** One customer's events of one type in [from, to): what the aggregation reads. */
export interface EventRange {
  tenant: Tenant;
  customerId: string;
  type: string;
  from: Date;
  to: Date;
}

export interface UsageEventPageQuery {
  tenant: Tenant;
  limit: number;
  customerId?: string;
  type?: string;
  from?: Date;
  to?: Date;
  /** The page holds events stored before this one (`startingAfter`). */
  before?: string;
}

/** A value and, for `dynamic` prices, the event's own `data.unitPrice`, as the database gives them. */
export interface ValueRow {
  timestamp: Date;
  value: unknown;
  unitPrice?: unknown;
}

/**
 * The queries of usage events; each takes the caller's (transaction's) entity manager. The
 * insert and the aggregation reads are constant SQL (docs/benchmarks-usage.md): the insert is the
 * path of every ingested event, and the reads must stay index searches on
 * ix_usage_events_org_mode_customer_type_ts whatever the table holds.
 */
@Injectable()
export class UsageEventsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Inserts the events whose idempotency key is not stored yet in their organization and mode;
   * returns how many it inserted. The rows go in key order, so two requests with overlapping
   * keys wait for each other's keys in the same order and never deadlock on PostgreSQL; the
   * unique index makes the later one skip what the earlier one stored.
   */
  async insertNew(m: EntityManager, rows: UsageEvent[]): Promise<number> {
    const sorted = [...rows].sort((a, b) =>
      a.idempotencyKey < b.idempotencyKey ? -1 : a.idempotencyKey > b.idempotencyKey ? 1 : 0,
    );
    let inserted = 0;
    for (let i = 0; i < sorted.length; i += ROWS_PER_INSERT) {
      const chunk = sorted.slice(i, i + ROWS_PER_INSERT);
      // TypeORM's insert skipping stored keys (ON CONFLICT DO NOTHING / INSERT OR IGNORE);
      // RETURNING says which rows went in, on both databases (SQLite 3.35+).
      const [sql, params] = m
        .createQueryBuilder()
        .insert()
        .into(UsageEvent)
        .values(chunk as QueryDeepPartialEntity<UsageEvent>[])
        .orIgnore()
        .updateEntity(false)
        .getQueryAndParameters();
      const stored = await m.query<unknown[]>(`${sql} RETURNING "id"`, params);
      inserted += stored.length;
    }
    return inserted;
  }

  findOne(m: EntityManager, tenant: Tenant, id: string): Promise<UsageEvent | null> {
    return m.findOneBy(UsageEvent, {
      id,
      organizationId: tenant.organizationId,
      livemode: tenant.livemode,
    });
  }

  /** One page, newest first (id descending: ids are ULIDs), stopping after `limit` rows. */
  page(m: EntityManager, q: UsageEventPageQuery): Promise<UsageEvent[]> {
    const qb = m
      .createQueryBuilder(UsageEvent, 'u')
      .where('u.organizationId = :organizationId', { organizationId: q.tenant.organizationId })
      .andWhere('u.livemode = :livemode', { livemode: q.tenant.livemode });
    if (q.customerId !== undefined) qb.andWhere('u.customerId = :customerId', q);
    if (q.type !== undefined) qb.andWhere('u.type = :type', q);
    if (q.from !== undefined) qb.andWhere('u.timestamp >= :from', q);
    if (q.to !== undefined) qb.andWhere('u.timestamp < :to', q);
    if (q.before !== undefined) qb.andWhere('u.id < :before', q);
    return qb.orderBy('u.id', 'DESC').limit(q.limit).getMany();
  }

  private rangeParams(r: EventRange): unknown[] {
    return [r.tenant.organizationId, r.tenant.livemode, r.customerId, r.type, r.from, r.to];
  }

  /**
   * The value at `valueProperty` as SQL, and its parameter: on SQLite a string or a number (what
   * json_extract gives), on PostgreSQL its JSON text, which `fromSql` parses (so that a string
   * "1" and a number 1 stay apart on both).
   */
  private valueSql(valueProperty: string): { sql: string; param: unknown } {
    return this.db.isPostgres
      ? { sql: `("data" #> ?::text[])::text`, param: pathOf(valueProperty) }
      : { sql: `json_extract("data", ?)`, param: valueProperty };
  }

  private fromSql(value: unknown): unknown {
    if (!this.db.isPostgres || typeof value !== 'string') return value;
    return JSON.parse(value) as unknown;
  }

  /** How many of the customer's events of this type fall in the range. */
  async count(m: EntityManager, r: EventRange): Promise<number> {
    const [row] = await this.db.rows<{ n: string | number }>(
      m,
      `SELECT COUNT(*) AS "n" FROM "usage_events" WHERE ${RANGE}`,
      this.rangeParams(r),
    );
    return Number(row.n);
  }

  /** How many distinct strings and numbers the events hold at `valueProperty` ("1" is not 1). */
  async countDistinct(m: EntityManager, r: EventRange, valueProperty: string): Promise<number> {
    const text = this.db.isPostgres
      ? `SELECT COUNT(DISTINCT ("data" #> ?::text[])::text) AS "n" FROM "usage_events" ` +
        `WHERE ${RANGE} AND json_typeof("data" #> ?::text[]) IN ('string', 'number')`
      : `SELECT COUNT(DISTINCT json_extract("data", ?)) AS "n" FROM "usage_events" ` +
        `WHERE ${RANGE} AND json_type("data", ?) IN ('text', 'integer', 'real')`;
    const path = this.db.isPostgres ? pathOf(valueProperty) : valueProperty;
    const [row] = await this.db.rows<{ n: string | number }>(m, text, [
      path,
      ...this.rangeParams(r),
      path,
    ]);
    return Number(row.n);
  }

  /**
   * PostgreSQL only: SUM or MAX of the decimal values in the range, computed by the database in
   * `numeric` (exact); values that are not decimals of docs/api.md §1 are left out. null: none.
   */
  async numericAggregate(
    m: EntityManager,
    r: EventRange,
    fn: 'SUM' | 'MAX',
    valueProperty: string,
  ): Promise<string | null> {
    const [row] = await this.db.rows<{ v: string | null }>(
      m,
      `SELECT ${fn}(CAST("v" AS numeric))::text AS "v" FROM (SELECT ("data" #>> ?::text[]) AS "v" ` +
        `FROM "usage_events" WHERE ${RANGE}) AS "e" WHERE "v" ~ ?`,
      [pathOf(valueProperty), ...this.rangeParams(r), DECIMAL_PATTERN.source],
    );
    return row.v;
  }

  /** The value of the event with the latest timestamp that has one (ties: the one stored last). */
  async latest(m: EntityManager, r: EventRange, valueProperty: string): Promise<unknown> {
    const v = this.valueSql(valueProperty);
    const rows = await this.db.rows<{ v: unknown }>(
      m,
      `SELECT ${v.sql} AS "v" FROM "usage_events" WHERE ${RANGE} AND ${v.sql} IS NOT NULL ` +
        `ORDER BY "timestamp" DESC, "id" DESC LIMIT 1`,
      [v.param, ...this.rangeParams(r), v.param],
    );
    return rows.length === 0 ? undefined : this.fromSql(rows[0].v);
  }

  /**
   * Every event's timestamp and value (and `data.unitPrice` when asked) in the range, oldest
   * first: the rows the windows, SQLite's sums and the dynamic price fold in JavaScript.
   */
  async values(
    m: EntityManager,
    r: EventRange,
    valueProperty: string | null,
    withUnitPrice = false,
  ): Promise<ValueRow[]> {
    const params: unknown[] = [];
    const columns = [`"timestamp" AS "t"`];
    if (valueProperty !== null) {
      const v = this.valueSql(valueProperty);
      columns.push(`${v.sql} AS "v"`);
      params.push(v.param);
    }
    if (withUnitPrice) {
      const u = this.valueSql('$.unitPrice');
      columns.push(`${u.sql} AS "u"`);
      params.push(u.param);
    }
    const rows = await this.db.rows<{ t: unknown; v?: unknown; u?: unknown }>(
      m,
      `SELECT ${columns.join(', ')} FROM "usage_events" WHERE ${RANGE} ORDER BY "timestamp", "id"`,
      [...params, ...this.rangeParams(r)],
    );
    return rows.map((row) => ({
      timestamp: asDate(row.t),
      value: this.fromSql(row.v),
      unitPrice: this.fromSql(row.u),
    }));
  }
}

/** One customer's events of one type in [from, to): a range of the aggregation index. */
const RANGE =
  `"organization_id" = ? AND "livemode" = ? AND "customer_id" = ? AND "type" = ? ` +
  `AND "timestamp" >= ? AND "timestamp" < ?`;

/** A timestamp as the driver gives it: a Date (pg), or SQLite's `YYYY-MM-DD HH:mm:ss.SSS` UTC text. */
function asDate(value: unknown): Date {
  if (value instanceof Date) return value;
  const text = String(value);
  return new Date(`${text.slice(0, 10)}T${text.slice(11)}Z`);
}
