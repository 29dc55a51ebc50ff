import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { assertOwnMerchant } from '../common/merchant';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { Database } from '../database/database';
import { lockedUpdate } from '../database/locked-update';
import { Tenant } from '../common/tenant';
import { Caller } from '../platform/caller';
import { EventsService } from '../events/events.service';
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
    private readonly events: EventsService,
  ) {}

  async create(caller: Caller, dto: CreateBillableMetricDto): Promise<BillableMetricResponse> {
    const { organizationId, livemode } = caller.principal;
    assertOwnMerchant(organizationId, dto.merchantId);
    return this.db.transaction(async (m) => {
      if (!(await this.catalog.hasProduct(m, caller.principal, dto.productId))) {
        throw ValidationFailedError.field(
          'productId',
          'product_not_found',
          `no product '${dto.productId}' in your organization`,
          'PRODUCT_NOT_FOUND',
        );
      }
      const now = new Date();
      const metric: BillableMetric = {
        id: newId(ID_PREFIXES.billableMetric),
        organizationId,
        livemode,
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
      const response = toBillableMetricResponse(metric);
      await this.events.record(m, { ...caller, type: 'billableMetric.created', object: response });
      return response;
    }, caller.commit);
  }

  async get(tenant: Tenant, id: string): Promise<BillableMetricResponse> {
    const metric = isIdOf(ID_PREFIXES.billableMetric, id)
      ? await this.db.read((m) => this.metrics.find(m, tenant, id))
      : null;
    if (!metric) throw new NotFoundError('billableMetric', id);
    return toBillableMetricResponse(metric);
  }

  async list(
    tenant: Tenant,
    query: ListBillableMetricsQueryDto,
  ): Promise<ListResponse<BillableMetricResponse>> {
    assertOwnMerchant(tenant.organizationId, query.merchantId);
    const [metrics, total] = await this.db.snapshot((m) =>
      this.metrics.page(m, tenant, { productId: query.productId }, query),
    );
    return toListResponse(metrics.map(toBillableMetricResponse), total, query);
  }

  /** Changes name, description and unit; If-Match guards against lost updates. */
  async update(
    caller: Caller,
    id: string,
    dto: UpdateBillableMetricDto,
    ifMatch?: string,
  ): Promise<BillableMetricResponse> {
    const tenant = caller.principal;
    if (!isIdOf(ID_PREFIXES.billableMetric, id)) throw new NotFoundError('billableMetric', id);
    return this.db.transaction(
      (m) =>
        lockedUpdate({
          load: () => this.metrics.find(m, tenant, id, true),
          notFound: () => new NotFoundError('billableMetric', id),
          view: toBillableMetricResponse,
          ifMatch,
          changes: () => ({
            name: dto.name ?? undefined,
            description:
              dto.description === undefined ? undefined : normalizeDescription(dto.description),
            unit: dto.unit ?? undefined,
          }),
          write: (_, changed) => this.metrics.update(m, tenant, id, changed),
          written: (before, after) =>
            this.events.recordUpdate(
              m,
              { ...caller, type: 'billableMetric.updated' },
              before,
              after,
            ),
        }),
      caller.commit,
    );
  }
}
