import { Injectable } from '@nestjs/common';
import { EntityManager, In, IsNull, Not } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Database } from '../database/database';
import { claimLock } from '../database/lease-poller';
import { EventRecord } from '../events/entities/event.entity';
import { ListWebhookDeliveriesQueryDto } from './dto/list-webhook-deliveries-query.dto';
import { WebhookAttempt } from './entities/webhook-attempt.entity';
import { WebhookDelivery } from './entities/webhook-delivery.entity';

/** Rows per INSERT of deliveries (nine columns each: within both drivers' parameter limits). */
const INSERT_ROWS = 500;

/** The queries of webhook_deliveries and webhook_attempts; each takes the caller's manager. */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly db: Database) {}

  /** New deliveries; one already queued for its event and endpoint is left as it is. */
  async insert(m: EntityManager, deliveries: WebhookDelivery[]): Promise<void> {
    for (let i = 0; i < deliveries.length; i += INSERT_ROWS) {
      await m
        .createQueryBuilder()
        .insert()
        .into(WebhookDelivery)
        .values(deliveries.slice(i, i + INSERT_ROWS) as QueryDeepPartialEntity<WebhookDelivery>[])
        .orIgnore()
        .execute();
    }
  }

  /**
   * Up to `limit` deliveries of one endpoint due at `now`, oldest due first, leased until
   * `leaseUntil` under `token`: an index search on (endpoint_id, next_attempt_at); claimLock, so
   * that two instances never lease one delivery.
   */
  async claim(
    m: EntityManager,
    endpointId: string,
    now: Date,
    limit: number,
    lease: { until: Date; token: string },
  ): Promise<WebhookDelivery[]> {
    const due = await claimLock(
      m
        .createQueryBuilder(WebhookDelivery, 'd')
        .where('d.endpointId = :endpointId', { endpointId })
        .andWhere('d.nextAttemptAt IS NOT NULL')
        .andWhere('d.nextAttemptAt <= :now', { now })
        .orderBy('d.nextAttemptAt', 'ASC')
        .limit(limit),
    ).getMany();
    if (due.length === 0) return [];
    const leased = { nextAttemptAt: lease.until, leaseToken: lease.token, updatedAt: now };
    await m.update(WebhookDelivery, { id: In(due.map((d) => d.id)) }, leased);
    return due.map((d) => ({ ...d, ...leased }));
  }

  /** The soonest due time of an endpoint's deliveries still to make (leased ones too), or null. */
  async soonestDue(m: EntityManager, endpointId: string): Promise<Date | null> {
    const next = await m.findOne(WebhookDelivery, {
      select: { id: true, nextAttemptAt: true },
      where: { endpointId, nextAttemptAt: Not(IsNull()) },
      order: { nextAttemptAt: 'ASC' },
    });
    return next?.nextAttemptAt ?? null;
  }

  /** One delivery, locked for the record of its attempt. */
  lock(m: EntityManager, id: string): Promise<WebhookDelivery | null> {
    return m.findOne(WebhookDelivery, { where: { id }, lock: this.db.rowLock });
  }

  async update(
    m: EntityManager,
    id: string,
    changes: QueryDeepPartialEntity<WebhookDelivery>,
  ): Promise<void> {
    await m.update(WebhookDelivery, { id }, { ...changes, updatedAt: new Date() });
  }

  /** Updates a delivery whose lease is still `delivery`'s; false if another claim took it over. */
  async finish(
    m: EntityManager,
    delivery: WebhookDelivery,
    changes: QueryDeepPartialEntity<WebhookDelivery>,
  ): Promise<boolean> {
    const { affected } = await m.update(
      WebhookDelivery,
      { id: delivery.id, leaseToken: delivery.leaseToken! },
      { ...changes, leaseToken: null, updatedAt: new Date() },
    );
    return affected === 1;
  }

  /**
   * A leased delivery not attempted (its instance stopping) is due again at `at`, if the lease
   * is still `token`'s and it was not canceled meanwhile; not counted as an attempt.
   */
  async handBack(m: EntityManager, id: string, token: string, at: Date): Promise<void> {
    await m.update(
      WebhookDelivery,
      { id, leaseToken: token, status: Not('canceled') },
      { nextAttemptAt: at, leaseToken: null, updatedAt: at },
    );
  }

  /** The events that claimed deliveries send (those still stored). */
  events(m: EntityManager, ids: string[]): Promise<EventRecord[]> {
    return ids.length === 0 ? Promise.resolve([]) : m.findBy(EventRecord, { id: In(ids) });
  }

  /**
   * Cancels what an endpoint still had to receive (it was disabled or deleted), leased ones too:
   * an attempt in flight is still recorded when it ends, with no retry. Canceled, a delivery is
   * never due again.
   */
  async cancelPending(m: EntityManager, endpointId: string): Promise<void> {
    await m.update(
      WebhookDelivery,
      { endpointId, nextAttemptAt: Not(IsNull()) },
      { status: 'canceled', nextAttemptAt: null, updatedAt: new Date() },
    );
  }

  /** When the oldest delivery still to make was queued, or null (the metrics' lag). */
  async oldestUndeliveredAt(m: EntityManager): Promise<Date | null> {
    const oldest = await m.findOne(WebhookDelivery, {
      select: { id: true, createdAt: true },
      where: { nextAttemptAt: Not(IsNull()) },
      order: { createdAt: 'ASC' },
    });
    return oldest?.createdAt ?? null;
  }

  async insertAttempt(m: EntityManager, attempt: WebhookAttempt): Promise<void> {
    await m.insert(WebhookAttempt, attempt as QueryDeepPartialEntity<WebhookAttempt>);
  }

  /** A page of an endpoint's attempts, newest first, by event or outcome when asked. */
  attemptsPage(
    m: EntityManager,
    endpointId: string,
    query: ListWebhookDeliveriesQueryDto,
  ): Promise<[WebhookAttempt[], number]> {
    const { eventId, succeeded } = query;
    return m.findAndCount(WebhookAttempt, {
      where: { endpointId, eventId, succeeded },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: query.limit,
      skip: query.offset,
    });
  }
}
