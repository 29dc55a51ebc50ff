import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ValidationFailedError } from '../common/errors';
import { ID_PREFIXES, isIdOf } from '../common/ids';
import { Tenant } from '../common/tenant';
import { BillableMetricsRepository } from './billable-metrics.repository';
import { ProductsRepository } from './products.repository';

/**
 * What other modules may ask the catalog (CatalogModule exports only this): whether an
 * organization has, in one mode, a product or a billable metric, and which product a metric measures. Each
 * question runs on the entity manager of the caller's transaction, so it sees that transaction's
 * writes and, on SQLite, does not wait for it.
 */
@Injectable()
export class CatalogService {
  constructor(
    private readonly products: ProductsRepository,
    private readonly metrics: BillableMetricsRepository,
  ) {}

  /** True when `id` is one of this organization's products in this mode (false for a malformed id). */
  async hasProduct(m: EntityManager, tenant: Tenant, id: unknown): Promise<boolean> {
    return isIdOf(ID_PREFIXES.product, id) && this.products.exists(m, tenant, id);
  }

  /**
   * For a product id sent in a body (`productId` of a billable metric): 400 naming the field,
   * code PRODUCT_NOT_FOUND, when it is not one of this organization's products.
   */
  async requireProduct(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    field = 'productId',
  ): Promise<void> {
    if (await this.hasProduct(m, tenant, id)) return;
    throw ValidationFailedError.field(
      field,
      'product_not_found',
      `no product '${id}' in your organization`,
      'PRODUCT_NOT_FOUND',
    );
  }

  /** True when `id` is one of this organization's billable metrics in this mode (false for a malformed id). */
  async hasBillableMetric(m: EntityManager, tenant: Tenant, id: unknown): Promise<boolean> {
    return isIdOf(ID_PREFIXES.billableMetric, id) && this.metrics.exists(m, tenant, id);
  }

  /**
   * The product of each of this organization's billable metrics among `ids`, by metric id.
   * Ids that are malformed, missing, another organization's or the other mode's are absent from the map.
   */
  async productsOfMetrics(
    m: EntityManager,
    tenant: Tenant,
    ids: readonly string[],
  ): Promise<Map<string, string>> {
    const wanted = [...new Set(ids.filter((id) => isIdOf(ID_PREFIXES.billableMetric, id)))];
    if (wanted.length === 0) return new Map();
    return this.metrics.productsOf(m, tenant, wanted);
  }
}
