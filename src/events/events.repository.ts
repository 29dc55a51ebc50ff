import { Injectable } from '@nestjs/common';
import { EntityManager, In, LessThan } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { ID_PREFIXES, idsMadeBefore } from '../common/ids';
import { Database } from '../database/database';
import { claimLock } from '../database/lease-poller';
import { EventRecord } from './entities/event.entity';
import { Tenant } from '../platform/caller';

export interface EventPageQuery {
  tenant: Tenant;
  limit: number;
  /** One exact type. */
  type?: string;
  /** Every type of one resource (a `prefix.*` filter, see `typesOfPrefix`); none: no events. */
  types?: readonly string[];
  /**
   * The page starts next to this event: `older` (startingAfter) reads newest first below it,
   * `newer` (endingBefore) reads oldest first above it, so the rows nearest the cursor come first.
   */
  cursor?: { createdAt: Date; id: string; side: 'older' | 'newer' };
}

/** The queries of the events table; every method takes the caller's (transaction's) manager. */
@Injectable()
export class EventsRepository {
  constructor(private readonly db: Database) {}

  async insert(m: EntityManager, event: EventRecord): Promise<void> {
    // `data` is a JSON column: TypeORM's deep-partial type does not take its `unknown` values.
    await m.insert(EventRecord, event as QueryDeepPartialEntity<EventRecord>);
  }

  /** Up to `limit` events due for fan-out at `now`, oldest first, moved to `leaseUntil`. */
  async claimFanOut(
    m: EntityManager,
    now: Date,
    limit: number,
    leaseUntil: Date,
  ): Promise<EventRecord[]> {
    const due = await claimLock(
      m
        .createQueryBuilder(EventRecord, 'e')
        .where('e.fanOutAt IS NOT NULL')
        .andWhere('e.fanOutAt <= :now', { now })
        .orderBy('e.fanOutAt', 'ASC')
        .limit(limit),
    ).getMany();
    if (due.length > 0) {
      await m.update(EventRecord, { id: In(due.map((e) => e.id)) }, { fanOutAt: leaseUntil });
    }
    return due;
  }

  async clearFanOut(m: EntityManager, ids: string[]): Promise<void> {
    if (ids.length > 0) await m.update(EventRecord, { id: In(ids) }, { fanOutAt: null });
  }

  findOne(m: EntityManager, tenant: Tenant, id: string): Promise<EventRecord | null> {
    return m.findOneBy(EventRecord, {
      id,
      organizationId: tenant.organizationId,
      livemode: tenant.livemode,
    });
  }

  /**
   * One page by (createdAt, id) on one side of the cursor, nearest first (newest first without
   * one): an index search on (organization, mode[, type], created_at, id), forwards or backwards,
   * that stops after `limit` rows, at any depth. Several types (`prefix.*`): see pageOfTypes.
   */
  page(m: EntityManager, q: EventPageQuery): Promise<EventRecord[]> {
    if (q.types !== undefined) return this.pageOfTypes(m, q, q.types);
    const qb = m
      .createQueryBuilder(EventRecord, 'e')
      .where('e.organizationId = :organizationId', { organizationId: q.tenant.organizationId })
      .andWhere('e.livemode = :livemode', { livemode: q.tenant.livemode });
    if (q.type !== undefined) qb.andWhere('e.type = :type', { type: q.type });
    const newer = q.cursor?.side === 'newer';
    if (q.cursor) {
      qb.andWhere(`(e.createdAt, e.id) ${newer ? '>' : '<'} (:cursorCreatedAt, :cursorId)`, {
        cursorCreatedAt: q.cursor.createdAt,
        cursorId: q.cursor.id,
      });
    }
    const order = newer ? 'ASC' : 'DESC';
    return qb.orderBy('e.createdAt', order).addOrderBy('e.id', order).limit(q.limit).getMany();
  }

  /**
   * The page of a `prefix.*` filter, from the index of exact types (there is no index by
   * resource, one B-tree fewer to write per event): a UNION ALL of one member per type, each the
   * exact-type page (an index search on ix_events_org_mode_type_created that stops after `limit`
   * rows), then the newest `limit` of what they found. So a page reads and sorts at most
   * types × limit rows (a resource has at most five types), at any depth. The union is a
   * MATERIALIZED common table expression so that neither database merges the outer ORDER BY into
   * the members (SQLite would then sort each member again): one sort, of that union, at the end.
   * SQL text (Database.rows) for the union, which TypeORM does not build; it reads ids, and the
   * page's rows are then read by primary key.
   */
  private async pageOfTypes(
    m: EntityManager,
    q: EventPageQuery,
    types: readonly string[],
  ): Promise<EventRecord[]> {
    if (types.length === 0) return [];
    const side = q.cursor?.side ?? 'first';
    const cursor = q.cursor ? [q.cursor.createdAt, q.cursor.id] : [];
    const params: unknown[] = [];
    for (const type of types) {
      params.push(q.tenant.organizationId, q.tenant.livemode, type, ...cursor, q.limit);
    }
    params.push(q.limit);
    const page = await this.db.rows<{ id: string }>(m, pageOfTypesSql(side, types.length), params);
    const rows = await m.findBy(EventRecord, { id: In(page.map((r) => r.id)) });
    const order = side === 'newer' ? 1 : -1;
    return rows.sort(
      (a, b) => order * (a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1)),
    );
  }

  /**
   * Deletes up to `limit` events created before `cutoff`, oldest first, and says how many: a
   * range of the primary key, since an event's id is a ULID that starts with its creation time
   * (no index of its own to keep up on every write).
   */
  async deleteOlderThan(m: EntityManager, cutoff: Date, limit: number): Promise<number> {
    const rows = await m.find(EventRecord, {
      select: { id: true },
      where: { id: LessThan(idsMadeBefore(ID_PREFIXES.event, cutoff)) },
      order: { id: 'ASC' },
      take: limit,
    });
    if (rows.length > 0) await m.delete(EventRecord, { id: In(rows.map((r) => r.id)) });
    return rows.length;
  }
}

/**
 * The ids of a `prefix.*` page (see pageOfTypes): `types` members, on one side of a cursor or
 * none. Parameters: per type the organization, mode, type, [cursor createdAt, id], limit; then
 * the limit.
 */
function pageOfTypesSql(side: 'first' | 'older' | 'newer', types: number): string {
  const order = side === 'newer' ? 'ASC' : 'DESC';
  const cursor =
    side === 'first' ? '' : ` AND ("created_at", "id") ${side === 'newer' ? '>' : '<'} (?, ?)`;
  const orderBy = `ORDER BY "created_at" ${order}, "id" ${order}`;
  // SQLite takes an ORDER BY or LIMIT of a compound's member only inside a subquery.
  const member = (i: number) =>
    `SELECT * FROM (SELECT "id", "created_at" FROM "events" ` +
    `WHERE "organization_id" = ? AND "livemode" = ? AND "type" = ?${cursor} ` +
    `${orderBy} LIMIT ?) AS "t${i}"`;
  const members = Array.from({ length: types }, (_, i) => member(i)).join(' UNION ALL ');
  return `WITH "page" AS MATERIALIZED (${members}) SELECT "id" FROM "page" ${orderBy} LIMIT ?`;
}
