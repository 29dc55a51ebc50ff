import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, In, IsNull } from 'typeorm';
import { Tenant, ownedBy } from '../common/tenant';
import { Database } from '../database/database';
import { BillableMetric } from './entities/billable-metric.entity';

/** The queries of billable metrics, on the entity manager of the caller's unit of work. */
@Injectable()
export class BillableMetricsRepository {
  constructor(private readonly db: Database) {}

  async insert(m: EntityManager, metric: BillableMetric): Promise<void> {
    await m.insert(BillableMetric, metric);
  }

  /** The tenant's metric; locked for a read-modify-write on PostgreSQL when `lock` is set. */
  find(m: EntityManager, tenant: Tenant, id: string, lock = false): Promise<BillableMetric | null> {
    return m.findOne(BillableMetric, {
      where: { id, ...ownedBy(tenant) },
      lock: lock ? this.db.rowLock : undefined,
    });
  }

  /** The metrics that count events of one of `types` (by eventType, or by id without one). */
  countingTypes(
    m: EntityManager,
    tenant: Tenant,
    types: readonly string[],
  ): Promise<BillableMetric[]> {
    const ids = types.filter((t) => t.startsWith('bm_'));
    const where: FindOptionsWhere<BillableMetric>[] = [
      { ...ownedBy(tenant), eventType: In([...types]) },
    ];
    if (ids.length > 0) where.push({ ...ownedBy(tenant), eventType: IsNull(), id: In(ids) });
    return m.find(BillableMetric, { where });
  }

  exists(m: EntityManager, tenant: Tenant, id: string): Promise<boolean> {
    return m.exists(BillableMetric, { where: { id, ...ownedBy(tenant) } });
  }

  /** The product of each of the tenant's metrics among `ids`; missing ones are absent. */
  async productsOf(
    m: EntityManager,
    tenant: Tenant,
    ids: readonly string[],
  ): Promise<Map<string, string>> {
    const metrics = await m.find(BillableMetric, {
      select: { id: true, productId: true },
      where: { id: In([...ids]), ...ownedBy(tenant) },
    });
    return new Map(metrics.map((metric) => [metric.id, metric.productId]));
  }

  /** A page of the organization's metrics (of one product, when given), newest first, and their total. */
  page(
    m: EntityManager,
    tenant: Tenant,
    filter: { productId?: string },
    page: { limit: number; offset: number },
  ): Promise<[BillableMetric[], number]> {
    return m.findAndCount(BillableMetric, {
      // Without a productId filter it is undefined, which TypeORM leaves out of the WHERE.
      where: { ...ownedBy(tenant), productId: filter.productId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
  }

  async update(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    changes: Partial<BillableMetric>,
  ): Promise<void> {
    await m.update(BillableMetric, { id, ...ownedBy(tenant) }, changes);
  }
}
