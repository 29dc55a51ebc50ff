import { Injectable } from '@nestjs/common';
import { EntityManager, In, IsNull, LessThanOrEqual, Not } from 'typeorm';
import { Tenant, ownedBy } from '../common/tenant';
import { Database } from '../database/database';
import { claimLock } from '../database/lease-poller';
import { ListSubscriptionsQueryDto } from './dto/subscription.dto';
import { Subscription } from './entities/subscription.entity';

/** The queries of subscriptions. */
@Injectable()
export class SubscriptionsRepository {
  constructor(private readonly db: Database) {}

  async insert(m: EntityManager, subscription: Subscription): Promise<void> {
    await m.insert(Subscription, subscription);
  }

  /** The tenant's subscription; locked for a read-modify-write on PostgreSQL with `lock`. */
  find(m: EntityManager, tenant: Tenant, id: string, lock = false): Promise<Subscription | null> {
    return m.findOne(Subscription, {
      where: { id, ...ownedBy(tenant) },
      lock: lock ? this.db.rowLock : undefined,
    });
  }

  /** A subscription by id alone, locked (background work: the row names its tenant). */
  findForWork(m: EntityManager, id: string): Promise<Subscription | null> {
    return m.findOne(Subscription, { where: { id }, lock: this.db.rowLock });
  }

  page(
    m: EntityManager,
    tenant: Tenant,
    query: ListSubscriptionsQueryDto,
  ): Promise<[Subscription[], number]> {
    return m.findAndCount(Subscription, {
      where: {
        ...ownedBy(tenant),
        ...(query.customerId !== undefined ? { customerId: query.customerId } : {}),
        ...(query.planId !== undefined ? { planId: query.planId } : {}),
        ...(query.status !== undefined ? { status: query.status } : {}),
      },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: query.limit,
      skip: query.offset,
    });
  }

  async update(m: EntityManager, id: string, changes: Partial<Subscription>): Promise<void> {
    await m.update(Subscription, { id }, changes);
  }

  /** The customer's active and pending subscriptions (the one-metric rule). */
  liveOfCustomer(m: EntityManager, customerId: string): Promise<Subscription[]> {
    return m.find(Subscription, {
      where: { customerId, status: In(['active', 'pending']) },
      select: ['id', 'planId'],
    });
  }

  /**
   * The real-time job's claim: up to `limit` subscriptions of customers on real time due at
   * `now`, soonest first, each leased until `leaseUntil` (its nextActionAt moves there).
   */
  async claimDue(m: EntityManager, now: Date, limit: number, leaseUntil: Date): Promise<string[]> {
    const due = await claimLock(
      m
        .createQueryBuilder(Subscription, 's')
        .select(['s.id'])
        .where('s.nextActionAt <= :now', { now })
        .andWhere('s.nextActionAt IS NOT NULL')
        .andWhere('s.testClockId IS NULL')
        .orderBy('s.nextActionAt', 'ASC')
        .limit(limit),
    ).getMany();
    const ids = due.map((s) => s.id);
    if (ids.length > 0) {
      await m.update(Subscription, { id: In(ids) }, { nextActionAt: leaseUntil });
    }
    return ids;
  }

  /** When a subscription of the clock's customers next needs work, or null. */
  async nextDueOnClock(m: EntityManager, testClockId: string): Promise<Date | null> {
    const next = await m.findOne(Subscription, {
      where: { testClockId, nextActionAt: Not(IsNull()) },
      order: { nextActionAt: 'ASC' },
      select: ['id', 'nextActionAt'],
    });
    return next?.nextActionAt ?? null;
  }

  /** The clock's subscriptions due at or before `at`, locked, oldest first. */
  dueOnClock(m: EntityManager, testClockId: string, at: Date): Promise<Subscription[]> {
    return m.find(Subscription, {
      where: { testClockId, nextActionAt: LessThanOrEqual(at) },
      order: { nextActionAt: 'ASC', id: 'ASC' },
      lock: this.db.rowLock,
    });
  }
}
