import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { assertOwnMerchant } from '../common/merchant';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import type { CommitHook } from '../database/commit-hook';
import { Database } from '../database/database';
import { lockedUpdate } from '../database/locked-update';
import { BillableMetricsRepository } from './billable-metrics.repository';
import { CatalogService } from './catalog.service';
import { BillableMetricResponse, toBillableMetricResponse } from './dto/billable-metric.response';
import { CreateBillableMetricDto } from './dto/create-billable-metric.dto';
import { ListBillableMetricsQueryDto } from './dto/list-billable-metrics-query.dto';
import { normalizeDescription } from '../common/text';
import { UpdateBillableMetricDto } from './dto/update-billable-metric.dto';
import { BillableMetric } from './entities/billable-metric.entity';

/** The rules of billable metrics (docs/api.md §5.2). */
@Injectable()
export class BillableMetricsService {
  constructor(
    private readonly db: Database,
    private readonly catalog: CatalogService,
    private readonly metrics: BillableMetricsRepository,
  ) {}

  async create(
    organizationId: string,
    dto: CreateBillableMetricDto,
    commit?: CommitHook,
  ): Promise<BillableMetricResponse> {
    assertOwnMerchant(organizationId, dto.merchantId);
    return this.db.transaction(async (m) => {
      await this.catalog.requireProduct(m, organizationId, dto.productId, 'productId');
      const now = new Date();
      const metric: BillableMetric = {
        id: newId(ID_PREFIXES.billableMetric),
        organizationId,
        productId: dto.productId,
        name: dto.name,
        description: normalizeDescription(dto.description),
        unit: dto.unit,
        aggregation: dto.aggregation,
        valueProperty: dto.aggregation === 'COUNT' ? null : (dto.valueProperty ?? null),
        eventType: dto.eventType ?? null,
        createdAt: now,
        updatedAt: now,
      };
      await this.metrics.insert(m, metric);
      return toBillableMetricResponse(metric);
    }, commit);
  }

  async get(organizationId: string, id: string): Promise<BillableMetricResponse> {
    const metric = isIdOf(ID_PREFIXES.billableMetric, id)
      ? await this.db.read((m) => this.metrics.find(m, organizationId, id))
      : null;
    if (!metric) throw new NotFoundError('billable metric', id);
    return toBillableMetricResponse(metric);
  }

  async list(
    organizationId: string,
    query: ListBillableMetricsQueryDto,
  ): Promise<ListResponse<BillableMetricResponse>> {
    const [metrics, total] = await this.db.read((m) =>
      this.metrics.page(m, organizationId, { productId: query.productId }, query),
    );
    return toListResponse(metrics.map(toBillableMetricResponse), total, query);
  }

  /** Changes name, description and unit; If-Match guards against lost updates. */
  async update(
    organizationId: string,
    id: string,
    dto: UpdateBillableMetricDto,
    ifMatch?: string,
    commit?: CommitHook,
  ): Promise<BillableMetricResponse> {
    if (!isIdOf(ID_PREFIXES.billableMetric, id)) throw new NotFoundError('billable metric', id);
    return this.db.transaction(
      (m) =>
        lockedUpdate({
          load: () => this.metrics.findForUpdate(m, organizationId, id),
          notFound: () => new NotFoundError('billable metric', id),
          view: toBillableMetricResponse,
          ifMatch,
          changes: () => ({
            name: dto.name ?? undefined,
            description:
              dto.description === undefined ? undefined : normalizeDescription(dto.description),
            unit: dto.unit ?? undefined,
          }),
          write: (_, changed) => this.metrics.update(m, organizationId, id, changed),
        }),
      commit,
    );
  }
}
