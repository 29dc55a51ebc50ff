import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ID_PREFIXES, isIdOf } from '../common/ids';
import { Tenant } from '../common/tenant';
import { BillableMetricsRepository } from './billable-metrics.repository';
import { ProductsRepository } from './products.repository';
import { BillableMetric } from './entities/billable-metric.entity';

/** What counting usage needs of a billable metric (docs/api.md §5.11). */
export type MeteringRules = Pick<
  BillableMetric,
  'id' | 'aggregation' | 'valueProperty' | 'eventType'
>;

const meteringRules = (m: BillableMetric): MeteringRules => ({
  id: m.id,
  aggregation: m.aggregation,
  valueProperty: m.valueProperty,
  eventType: m.eventType,
});

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

  /** The counting rules of one of this organization's billable metrics in this mode, or null. */
  async meteringRules(m: EntityManager, tenant: Tenant, id: string): Promise<MeteringRules | null> {
    if (!isIdOf(ID_PREFIXES.billableMetric, id)) return null;
    const metric = await this.metrics.find(m, tenant, id);
    return metric ? meteringRules(metric) : null;
  }

  /**
   * The counting rules of every metric of this organization and mode that counts events of one
   * of `types`: its eventType is one of them, or it has none and its id is one (docs/api.md §5.11).
   */
  async meteringRulesOfTypes(
    m: EntityManager,
    tenant: Tenant,
    types: readonly string[],
  ): Promise<MeteringRules[]> {
    if (types.length === 0) return [];
    return (await this.metrics.countingTypes(m, tenant, types)).map(meteringRules);
  }
}
