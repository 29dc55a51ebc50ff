import { Injectable } from '@nestjs/common';
import { EntityManager, In, LessThan } from 'typeorm';
import { ID_PREFIXES, idsMadeBefore } from '../common/ids';
import { Database } from '../database/database';
import { EntityTable } from '../database/entity-table';
import { EventRecord } from './entities/event.entity';
import { Tenant } from './caller';

export interface EventPageQuery {
  tenant: Tenant;
  limit: number;
  type?: string;
  resource?: string;
  /** The page starts after this event (older than it). */
  after?: { createdAt: Date; id: string };
}

/**
 * The queries of the events table; every method takes the caller's (transaction's) manager. The
 * insert, on the path of every write (a plan create records four events, inserted together at
 * the end of its transaction), is constant SQL through the EntityTable mechanism (docs/benchmarks.md,
 * "Events and webhooks").
 */
@Injectable()
export class EventsRepository {
  private table?: EntityTable<EventRecord>;

  constructor(private readonly db: Database) {}

  /** The events in one INSERT (up to 50 a statement), in order. */
  async insertMany(m: EntityManager, events: EventRecord[]): Promise<void> {
    await this.db.insertRows(m, (this.table ??= this.db.table(EventRecord)), events);
  }

  findOne(m: EntityManager, tenant: Tenant, id: string): Promise<EventRecord | null> {
    return m.findOneBy(EventRecord, {
      id,
      organizationId: tenant.organizationId,
      livemode: tenant.livemode,
    });
  }

  /**
   * One page, newest first, by (createdAt, id) below the cursor: an index search on
   * (organization, mode[, type | resource], created_at, id) that stops after `limit` rows, at
   * any depth.
   */
  page(m: EntityManager, q: EventPageQuery): Promise<EventRecord[]> {
    const qb = m
      .createQueryBuilder(EventRecord, 'e')
      .where('e.organizationId = :organizationId', { organizationId: q.tenant.organizationId })
      .andWhere('e.livemode = :livemode', { livemode: q.tenant.livemode });
    if (q.type !== undefined) qb.andWhere('e.type = :type', { type: q.type });
    if (q.resource !== undefined) qb.andWhere('e.resource = :resource', { resource: q.resource });
    if (q.after) {
      qb.andWhere('(e.createdAt, e.id) < (:afterCreatedAt, :afterId)', {
        afterCreatedAt: q.after.createdAt,
        afterId: q.after.id,
      });
    }
    return qb.orderBy('e.createdAt', 'DESC').addOrderBy('e.id', 'DESC').limit(q.limit).getMany();
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
