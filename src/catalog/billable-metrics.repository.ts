import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere } from 'typeorm';
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

  find(m: EntityManager, organizationId: string, id: string): Promise<BillableMetric | null> {
    return m.findOneBy(BillableMetric, { id, organizationId });
  }

  /** The metric, locked for a read-modify-write on PostgreSQL (SQLite serializes writes). */
  findForUpdate(
    m: EntityManager,
    organizationId: string,
    id: string,
  ): Promise<BillableMetric | null> {
    return m.findOne(BillableMetric, { where: { id, organizationId }, lock: this.db.rowLock });
  }

  exists(m: EntityManager, organizationId: string, id: string): Promise<boolean> {
    return m.exists(BillableMetric, { where: { id, organizationId } });
  }

  /**
   * The product of each of the organization's metrics among `ids` (distinct, well-formed ids);
   * missing ones are absent. Constant SQL, one text per count: plan writes ask it for every
   * listed price (BENCHMARKS.md, plans' hot path).
   */
  async productsOf(
    m: EntityManager,
    organizationId: string,
    ids: readonly string[],
  ): Promise<Map<string, string>> {
    let text = this.productsOfSql.get(ids.length);
    if (text === undefined) {
      text =
        'SELECT "id", "product_id" FROM "billable_metrics" ' +
        `WHERE "id" IN (${ids.map(() => '?').join(', ')}) AND "organization_id" = ?`;
      this.productsOfSql.set(ids.length, text);
    }
    const rows = await this.db.rows<{ id: string; product_id: string }>(m, text, [
      ...ids,
      organizationId,
    ]);
    return new Map(rows.map((row) => [row.id, row.product_id]));
  }

  /** A page of the organization's metrics (of one product, when given), newest first, and their total. */
  page(
    m: EntityManager,
    organizationId: string,
    filter: { productId?: string },
    page: { limit: number; offset: number },
  ): Promise<[BillableMetric[], number]> {
    const where: FindOptionsWhere<BillableMetric> = { organizationId };
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
    organizationId: string,
    id: string,
    changes: Partial<BillableMetric>,
  ): Promise<void> {
    await m.update(BillableMetric, { id, organizationId }, changes);
  }
}
