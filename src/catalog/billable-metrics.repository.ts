import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, In, IsNull } from 'typeorm';
import { Tenant, ownedBy } from '../common/tenant';
import { Database } from '../database/database';
import { BillableMetric } from './entities/billable-metric.entity';

/** The queries of billable metrics, on the entity manager of the caller's unit of work. */
@Injectable()
export class BillableMetricsRepository {
  private readonly productsOfSql = new Map<number, string>();

  constructor(private readonly db: Database) {}

  async insert(m: EntityManager, metric: BillableMetric): Promise<void> {
    await m.insert(BillableMetric, metric);
  }

  find(m: EntityManager, tenant: Tenant, id: string): Promise<BillableMetric | null> {
    return m.findOneBy(BillableMetric, { id, ...ownedBy(tenant) });
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

  /** The metric, locked for a read-modify-write on PostgreSQL (SQLite serializes writes). */
  findForUpdate(m: EntityManager, tenant: Tenant, id: string): Promise<BillableMetric | null> {
    return m.findOne(BillableMetric, { where: { id, ...ownedBy(tenant) }, lock: this.db.rowLock });
  }

  exists(m: EntityManager, tenant: Tenant, id: string): Promise<boolean> {
    return m.exists(BillableMetric, { where: { id, ...ownedBy(tenant) } });
  }

  /**
   * The product of each of the organization's metrics (in this mode) among `ids` (distinct, well-formed ids);
   * missing ones are absent. Constant SQL, one text per count: plan writes ask it for every
   * listed price (docs/benchmarks.md, plans' hot path).
   */
  async productsOf(
    m: EntityManager,
    tenant: Tenant,
    ids: readonly string[],
  ): Promise<Map<string, string>> {
    // By id alone, scoped here (see PricesRepository.findMany: SQLite without statistics would
    // search the organization's index instead).
    let text = this.productsOfSql.get(ids.length);
    if (text === undefined) {
      text =
        'SELECT "id", "product_id", "organization_id", "livemode" FROM "billable_metrics" ' +
        `WHERE "id" IN (${ids.map(() => '?').join(', ')})`;
      this.productsOfSql.set(ids.length, text);
    }
    const rows = await this.db.rows<{
      id: string;
      product_id: string;
      organization_id: string;
      livemode: boolean | number;
    }>(m, text, [...ids]);
    return new Map(
      rows
        .filter(
          (row) =>
            row.organization_id === tenant.organizationId &&
            Boolean(row.livemode) === tenant.livemode,
        )
        .map((row) => [row.id, row.product_id]),
    );
  }

  /** A page of the organization's metrics (of one product, when given), newest first, and their total. */
  page(
    m: EntityManager,
    tenant: Tenant,
    filter: { productId?: string },
    page: { limit: number; offset: number },
  ): Promise<[BillableMetric[], number]> {
    const where: FindOptionsWhere<BillableMetric> = ownedBy(tenant);
    if (filter.productId !== undefined) where.productId = filter.productId;
    return m.findAndCount(BillableMetric, {
      where,
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
