import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, In, IsNull } from 'typeorm';
import { Tenant, ownedBy } from '../common/tenant';
import { Database } from '../database/database';
import { ListPricesQueryDto } from './dto/list-prices-query.dto';
import { Price } from './entities/price.entity';

/** The queries of prices, on the entity manager of the caller's unit of work. */
@Injectable()
export class PricesRepository {
  constructor(private readonly db: Database) {}

  async insert(m: EntityManager, price: Price): Promise<void> {
    await m.insert(Price, price);
  }

  /** The tenant's price (deleted ones too), locked on PostgreSQL when `lock` is set. */
  find(m: EntityManager, tenant: Tenant, id: string, lock = false): Promise<Price | null> {
    return m.findOne(Price, {
      where: { id, ...ownedBy(tenant) },
      lock: lock ? this.db.rowLock : undefined,
    });
  }

  page(m: EntityManager, tenant: Tenant, query: ListPricesQueryDto): Promise<[Price[], number]> {
    const where: FindOptionsWhere<Price> = ownedBy(tenant);
    if (query.billableMetricId) where.billableMetricId = query.billableMetricId;
    if (query.planId) where.planId = query.planId;
    if (!query.includeDeleted) where.deletedAt = IsNull();
    return m.findAndCount(Price, {
      where,
      order: { createdAt: 'DESC', id: 'DESC' },
      take: query.limit,
      skip: query.offset,
    });
  }

  async update(m: EntityManager, id: string, changes: Partial<Price>): Promise<void> {
    await m.update(Price, { id }, changes);
  }

  /** Soft-deletes the prices still live in a plan being deleted. */
  async deleteOfPlan(m: EntityManager, planId: string, now: Date): Promise<void> {
    await m.update(Price, { planId, deletedAt: IsNull() }, { deletedAt: now, updatedAt: now });
  }

  /** The prices of a plan, in plan order. */
  ofPlan(m: EntityManager, planId: string): Promise<Price[]> {
    return m.find(Price, { where: { planId }, order: { planPosition: 'ASC' } });
  }

  /**
   * The prices of a plan, in plan order, for a write of the plan: locked (rowLock), with the
   * prices `listed` (those the write will take), in one statement and in the order of their ids,
   * as every plan write locks prices, so that two plan writes that want each other's prices
   * queue instead of deadlocking. A plan write builds its answer and its events from these rows,
   * so a concurrent price PATCH must land before it reads them or wait for it. The caller holds
   * the plan's row lock, so no other write adds a price to the plan meanwhile.
   */
  async ofPlanForWrite(m: EntityManager, planId: string, listed: string[] = []): Promise<Price[]> {
    const where: FindOptionsWhere<Price>[] = [{ planId }];
    if (listed.length > 0) where.push({ id: In(listed) });
    const rows = await m.find(Price, { where, order: { id: 'ASC' }, lock: this.db.rowLock });
    return rows
      .filter((p) => p.planId === planId)
      .sort((a, b) => (a.planPosition ?? 0) - (b.planPosition ?? 0));
  }

  /** The prices of several plans, each plan's in plan order. */
  ofPlans(m: EntityManager, planIds: string[]): Promise<Price[]> {
    return m.find(Price, { where: { planId: In(planIds) }, order: { planPosition: 'ASC' } });
  }

  /**
   * The tenant's prices among `ids` (deleted ones too), in no particular order; locked when
   * `lock` is set, in the order of their ids (so two plans taking overlapping prices queue rather
   * than deadlock): a plan write builds its answer and its events from these rows.
   */
  findMany(m: EntityManager, tenant: Tenant, ids: string[], lock = false): Promise<Price[]> {
    return m.find(Price, {
      where: { id: In(ids), ...ownedBy(tenant) },
      order: lock ? { id: 'ASC' } : undefined,
      lock: lock ? this.db.rowLock : undefined,
    });
  }

  /**
   * Takes free, undeleted prices into a plan at the given positions, in one conditional UPDATE;
   * returns how many it took (fewer than `ids`: another plan or a delete got there first).
   */
  async take(
    m: EntityManager,
    planId: string,
    ids: string[],
    positions: Map<string, number>,
    now: Date,
  ): Promise<number> {
    const result = await this.positioned(m, ids)
      .set({ planId, updatedAt: now, planPosition: () => positionCase(ids, positions) })
      .andWhere('"plan_id" IS NULL')
      .andWhere('"deleted_at" IS NULL')
      .execute();
    return result.affected ?? 0;
  }

  /** Moves prices already in the plan to new positions. */
  async reorder(
    m: EntityManager,
    planId: string,
    ids: string[],
    positions: Map<string, number>,
  ): Promise<void> {
    await this.positioned(m, ids)
      .set({ planPosition: () => positionCase(ids, positions) })
      .andWhere('"plan_id" = :planId', { planId })
      .execute();
  }

  /** Frees prices of the plan: they go back to no plan. */
  async free(m: EntityManager, planId: string, ids: string[], now: Date): Promise<void> {
    await m.update(
      Price,
      { id: In(ids), planId },
      { planId: null, planPosition: null, updatedAt: now },
    );
  }

  /** An UPDATE of the prices `ids`, with the parameters of positionCase. */
  private positioned(m: EntityManager, ids: string[]) {
    const params = Object.fromEntries(ids.map((id, i) => [`p${i}`, id]));
    return m
      .createQueryBuilder()
      .update(Price)
      .where('"id" IN (:...ids)', { ids })
      .setParameters(params);
  }
}

/** The plan position of each price, by id: integers of our own, written into the text. */
function positionCase(ids: string[], positions: Map<string, number>): string {
  return `CASE "id" ${ids.map((id, i) => `WHEN :p${i} THEN ${positions.get(id)}`).join(' ')} END`;
}
