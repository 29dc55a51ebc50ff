import { Injectable } from '@nestjs/common';
import { EntityManager, In, LessThan } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { ID_PREFIXES, idsMadeBefore } from '../common/ids';
import { Database } from '../database/database';
import { claimLock } from '../database/lease-poller';
import { EntityTable, perCount } from '../database/entity-table';
import { EventRecord } from './entities/event.entity';
import { Tenant } from './caller';

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

/** The SQL of pageOfTypes per number of types: the first page, a page on one side of a cursor. */
interface PageOfTypesSql {
  first: (types: number) => string;
  older: (types: number) => string;
  newer: (types: number) => string;
}

/** The queries of the events table; every method takes the caller's (transaction's) manager. */
@Injectable()
export class EventsRepository {
  private table?: EntityTable<EventRecord>;
  private typesSql?: PageOfTypesSql;

  constructor(private readonly db: Database) {}

  private get eventsTable(): EntityTable<EventRecord> {
    return (this.table ??= this.db.table(EventRecord));
  }

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
   * Constant SQL per number of types, with or without a cursor.
   */
  private async pageOfTypes(
    m: EntityManager,
    q: EventPageQuery,
    types: readonly string[],
  ): Promise<EventRecord[]> {
    if (types.length === 0) return [];
    const table = this.eventsTable;
    const cursor = q.cursor ? [table.param('createdAt', q.cursor.createdAt), q.cursor.id] : [];
    const params: unknown[] = [];
    for (const type of types) {
      params.push(q.tenant.organizationId, q.tenant.livemode, type, ...cursor, q.limit);
    }
    params.push(q.limit);
    const sql = this.pageOfTypesSql[q.cursor?.side ?? 'first'](types.length);
    const rows = await this.db.rows(m, sql, params);
    return rows.map((row) => table.fromRow(row));
  }

  private get pageOfTypesSql(): PageOfTypesSql {
    if (!this.typesSql) {
      const columns = this.eventsTable.columnList();
      const build = (cursor: string, order: 'ASC' | 'DESC') => (types: number) => {
        const orderBy = `ORDER BY "created_at" ${order}, "id" ${order}`;
        // SQLite takes an ORDER BY or LIMIT of a compound's member only inside a subquery.
        const member = (i: number) =>
          `SELECT * FROM (SELECT ${columns} FROM "events" ` +
          `WHERE "organization_id" = ? AND "livemode" = ? AND "type" = ?${cursor} ` +
          `${orderBy} LIMIT ?) AS "t${i}"`;
        const members = Array.from({ length: types }, (_, i) => member(i)).join(' UNION ALL ');
        return `WITH "page" AS MATERIALIZED (${members}) SELECT * FROM "page" ${orderBy} LIMIT ?`;
      };
      this.typesSql = {
        first: perCount(build('', 'DESC')),
        older: perCount(build(' AND ("created_at", "id") < (?, ?)', 'DESC')),
        newer: perCount(build(' AND ("created_at", "id") > (?, ?)', 'ASC')),
      };
    }
    return this.typesSql;
  }

  /**
   * The ids of up to `limit` events created before `cutoff`, oldest first: a range of the primary
   * key, since an event's id is a ULID that starts with its creation time (no index of its own to
   * keep up on every write).
   */
  async idsOlderThan(m: EntityManager, cutoff: Date, limit: number): Promise<string[]> {
    const rows = await m.find(EventRecord, {
      select: { id: true },
      where: { id: LessThan(idsMadeBefore(ID_PREFIXES.event, cutoff)) },
      order: { id: 'ASC' },
      take: limit,
    });
    return rows.map((r) => r.id);
  }

  async deleteByIds(m: EntityManager, ids: string[]): Promise<void> {
    if (ids.length > 0) await m.delete(EventRecord, { id: In(ids) });
  }
}
