import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, In, IsNull, Not } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Database } from '../database/database';
import { EntityTable } from '../database/entity-table';
import { WebhookAttempt } from './entities/webhook-attempt.entity';
import { WebhookDelivery } from './entities/webhook-delivery.entity';

export interface AttemptFilters {
  eventId?: string;
  succeeded?: boolean;
}

/** The queries of webhook_deliveries and webhook_attempts; each takes the caller's manager. */
@Injectable()
export class WebhookDeliveriesRepository {
  private table?: EntityTable<WebhookDelivery>;

  constructor(private readonly db: Database) {}

  /** In the transaction of the event: constant SQL (EntityTable), one statement per delivery. */
  async insert(m: EntityManager, deliveries: WebhookDelivery[]): Promise<void> {
    const table = (this.table ??= this.db.table(WebhookDelivery));
    for (const delivery of deliveries) {
      await this.db.execute(m, table.insertSql, table.values(delivery));
    }
  }

  /**
   * Up to `limit` deliveries due at `now`, oldest due first, leaving out `busyEndpoints`. On
   * PostgreSQL the rows are locked FOR UPDATE SKIP LOCKED: another instance claiming at the same
   * moment skips them instead of waiting, and takes others. (On SQLite one process delivers and
   * its transactions already run one at a time.)
   */
  due(
    m: EntityManager,
    now: Date,
    limit: number,
    busyEndpoints: string[],
  ): Promise<WebhookDelivery[]> {
    const qb = m
      .createQueryBuilder(WebhookDelivery, 'd')
      .where('d.nextAttemptAt IS NOT NULL')
      .andWhere('d.nextAttemptAt <= :now', { now });
    if (busyEndpoints.length > 0) {
      qb.andWhere('d.endpointId NOT IN (:...busy)', { busy: busyEndpoints });
    }
    qb.orderBy('d.nextAttemptAt', 'ASC').limit(limit);
    if (this.db.isPostgres) qb.setLock('pessimistic_write').setOnLocked('skip_locked');
    return qb.getMany();
  }

  /** Moves claimed deliveries a lease ahead under this claim's token. */
  async lease(m: EntityManager, ids: string[], until: Date, token: string): Promise<void> {
    if (ids.length === 0) return;
    await m.update(
      WebhookDelivery,
      { id: In(ids) },
      { nextAttemptAt: until, leaseToken: token, updatedAt: new Date() },
    );
  }

  /** The delivery if this claim still holds it (its lease was not taken over), locked. */
  held(m: EntityManager, id: string, token: string): Promise<WebhookDelivery | null> {
    return m.findOne(WebhookDelivery, {
      where: { id, leaseToken: token },
      lock: this.db.rowLock,
    });
  }

  async update(
    m: EntityManager,
    id: string,
    changes: QueryDeepPartialEntity<WebhookDelivery>,
  ): Promise<void> {
    await m.update(WebhookDelivery, { id }, { ...changes, updatedAt: new Date() });
  }

  /** Cancels what an endpoint still had to receive (it was disabled or deleted). */
  async cancelPending(m: EntityManager, endpointId: string): Promise<void> {
    await m.update(
      WebhookDelivery,
      { endpointId, nextAttemptAt: Not(IsNull()) },
      { status: 'canceled', nextAttemptAt: null, leaseToken: null, updatedAt: new Date() },
    );
  }

  async insertAttempt(m: EntityManager, attempt: WebhookAttempt): Promise<void> {
    await m.insert(WebhookAttempt, attempt as QueryDeepPartialEntity<WebhookAttempt>);
  }

  attemptsPage(
    m: EntityManager,
    endpointId: string,
    filters: AttemptFilters,
    limit: number,
    offset: number,
  ): Promise<[WebhookAttempt[], number]> {
    const where: FindOptionsWhere<WebhookAttempt> = { endpointId };
    if (filters.eventId !== undefined) where.eventId = filters.eventId;
    if (filters.succeeded !== undefined) where.succeeded = filters.succeeded;
    return m.findAndCount(WebhookAttempt, {
      where,
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
      skip: offset,
    });
  }

  /** Deletes the deliveries and attempts of these events (the retention sweep). */
  async deleteForEvents(m: EntityManager, eventIds: string[]): Promise<void> {
    if (eventIds.length === 0) return;
    const deliveries = await m.find(WebhookDelivery, {
      select: { id: true },
      where: { eventId: In(eventIds) },
    });
    const ids = deliveries.map((d) => d.id);
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      await m.delete(WebhookAttempt, { deliveryId: In(chunk) });
      await m.delete(WebhookDelivery, { id: In(chunk) });
    }
  }
}
