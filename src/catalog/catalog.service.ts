import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { ID_PREFIXES, isIdOf } from '../common/ids';
import { Database } from '../database/database.service';
import { BillableMetric } from './entities/billable-metric.entity';
import { Product } from './entities/product.entity';

/**
 * Looks up an organization's products and billable metrics, for this module and for the modules
 * that refer to them (plans, prices).
 *
 * Every method takes an optional EntityManager: inside `db.transaction` pass its manager, so the
 * read joins that transaction (on SQLite a separate `db.read` would wait for the transaction
 * that is waiting for it). Without one, the read runs through `db.read`.
 */
@Injectable()
export class CatalogService {
  constructor(private readonly db: Database) {}

  private run<T>(manager: EntityManager | undefined, work: (m: EntityManager) => Promise<T>) {
    return manager ? work(manager) : this.db.read(work);
  }

  /** The product, or null when the id is malformed, missing or another organization's. */
  findProduct(organizationId: string, id: unknown, manager?: EntityManager) {
    if (!isIdOf(ID_PREFIXES.product, id)) return Promise.resolve(null);
    return this.run(manager, (m) => m.findOneBy(Product, { id, organizationId }));
  }

  /** For path ids: 404 when the product is not one of this organization's. */
  async getProductOrFail(
    organizationId: string,
    id: string,
    manager?: EntityManager,
  ): Promise<Product> {
    const product = await this.findProduct(organizationId, id, manager);
    if (!product) throw new NotFoundError('product', id);
    return product;
  }

  /**
   * For a product id sent in a body (`productId` of a billable metric or a plan): 400 naming the
   * field, code PRODUCT_NOT_FOUND, when it is not one of this organization's products.
   */
  async requireProduct(
    organizationId: string,
    id: string,
    field = 'productId',
    manager?: EntityManager,
  ): Promise<Product> {
    const product = await this.findProduct(organizationId, id, manager);
    if (!product) {
      throw ValidationFailedError.field(
        field,
        'product_not_found',
        `no product '${id}' in your organization`,
        'PRODUCT_NOT_FOUND',
      );
    }
    return product;
  }

  /** The billable metric, or null when the id is malformed, missing or another organization's. */
  findBillableMetric(organizationId: string, id: unknown, manager?: EntityManager) {
    if (!isIdOf(ID_PREFIXES.billableMetric, id)) return Promise.resolve(null);
    return this.run(manager, (m) => m.findOneBy(BillableMetric, { id, organizationId }));
  }

  /** For path ids: 404 when the billable metric is not one of this organization's. */
  async getBillableMetricOrFail(
    organizationId: string,
    id: string,
    manager?: EntityManager,
  ): Promise<BillableMetric> {
    const metric = await this.findBillableMetric(organizationId, id, manager);
    if (!metric) throw new NotFoundError('billable metric', id);
    return metric;
  }

  /**
   * This organization's billable metrics among `ids`, by id. Ids that are malformed, missing or
   * another organization's are simply absent from the map.
   */
  async findBillableMetrics(
    organizationId: string,
    ids: readonly string[],
    manager?: EntityManager,
  ): Promise<Map<string, BillableMetric>> {
    const wanted = [...new Set(ids.filter((id) => isIdOf(ID_PREFIXES.billableMetric, id)))];
    if (wanted.length === 0) return new Map();
    const metrics = await this.run(manager, (m) =>
      m.findBy(BillableMetric, { id: In(wanted), organizationId }),
    );
    return new Map(metrics.map((metric) => [metric.id, metric]));
  }
}
