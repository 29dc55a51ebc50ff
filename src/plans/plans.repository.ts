import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, IsNull } from 'typeorm';
import { Tenant, ownedBy } from '../common/tenant';
import { Database } from '../database/database';
import { ListPlansQueryDto } from './dto/list-plans-query.dto';
import { PlanCount } from './entities/plan-count.entity';
import { Plan } from './entities/plan.entity';

/** The queries of plans and their counts, on the entity manager of the caller's unit of work. */
@Injectable()
export class PlansRepository {
  constructor(private readonly db: Database) {}

  /** The tenant's plan (deleted ones too), locked when `lock` is set. */
  find(m: EntityManager, tenant: Tenant, id: string, lock = false): Promise<Plan | null> {
    return m.findOne(Plan, {
      where: { id, ...ownedBy(tenant) },
      lock: lock ? this.db.rowLock : undefined,
    });
  }

  async insert(m: EntityManager, plan: Plan): Promise<void> {
    await m.insert(Plan, plan);
  }

  async update(m: EntityManager, id: string, changes: Partial<Plan>): Promise<void> {
    await m.update(Plan, { id }, changes);
  }

  /** Adds `delta` to the plan's count of active and pending subscriptions. */
  async addSubscriptions(m: EntityManager, id: string, delta: number): Promise<void> {
    await m.increment(Plan, { id }, 'subscriptionCount', delta);
  }

  /** A page of the tenant's plans, newest first, and their total (from the kept counts). */
  async page(
    m: EntityManager,
    tenant: Tenant,
    query: ListPlansQueryDto,
  ): Promise<[Plan[], number]> {
    const where: FindOptionsWhere<Plan> = ownedBy(tenant);
    if (query.productId) where.productId = query.productId;
    if (!query.includeDeleted) where.deletedAt = IsNull();
    const plans = await m.find(Plan, {
      where,
      order: { createdAt: 'DESC', id: 'DESC' },
      take: query.limit,
      skip: query.offset,
    });
    const counts: FindOptionsWhere<PlanCount> = ownedBy(tenant);
    if (query.productId) counts.productId = query.productId;
    if (!query.includeDeleted) counts.deleted = 0;
    const total = await m.sum(PlanCount, 'plans', counts);
    return [plans, Number(total ?? 0)];
  }

  /**
   * Moves the plan count of `plan`'s organization, mode and product (live: 0, deleted: 1) by
   * `delta`, in the transaction that creates or deletes the plan: one row per key (slot 0; rows
   * of other slots written before are summed with it).
   */
  async count(m: EntityManager, plan: Plan, deleted: 0 | 1, delta: number): Promise<void> {
    await m
      .createQueryBuilder()
      .insert()
      .into(PlanCount)
      .values({ ...ownedBy(plan), productId: plan.productId, deleted, slot: 0, plans: delta })
      .onConflict(
        '("organization_id", "livemode", "product_id", "deleted", "slot") DO UPDATE SET "plans" = "plan_counts"."plans" + excluded."plans"',
      )
      .execute();
  }
}
