import { Injectable } from '@nestjs/common';
import { FindOptionsWhere } from 'typeorm';
import { NotFoundError } from '../common/errors';
import { assertIfMatch } from '../common/http/etag';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { Database } from '../database/database.service';
import { CatalogService } from './catalog.service';
import { BillableMetricResponse, toBillableMetricResponse } from './dto/billable-metric.response';
import { CreateBillableMetricDto } from './dto/create-billable-metric.dto';
import { ListBillableMetricsQueryDto } from './dto/list-billable-metrics-query.dto';
import { UpdateBillableMetricDto } from './dto/update-billable-metric.dto';
import { BillableMetric } from './entities/billable-metric.entity';
import { normalizeDescription } from '../common/text';
import { assertOwnMerchant } from '../common/merchant';

@Injectable()
export class BillableMetricsService {
  constructor(
    private readonly db: Database,
    private readonly catalog: CatalogService,
  ) {}

  async create(
    organizationId: string,
    dto: CreateBillableMetricDto,
  ): Promise<BillableMetricResponse> {
    assertOwnMerchant(organizationId, dto.merchantId);
    return this.db.transaction(async (m) => {
      await this.catalog.requireProduct(organizationId, dto.productId, 'productId', m);
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
      await m.insert(BillableMetric, metric);
      return toBillableMetricResponse(metric);
    });
  }

  async get(organizationId: string, id: string): Promise<BillableMetricResponse> {
    return toBillableMetricResponse(await this.catalog.getBillableMetricOrFail(organizationId, id));
  }

  async list(
    organizationId: string,
    query: ListBillableMetricsQueryDto,
  ): Promise<ListResponse<BillableMetricResponse>> {
    const where: FindOptionsWhere<BillableMetric> = { organizationId };
    if (query.productId !== undefined) where.productId = query.productId;
    const [metrics, total] = await this.db.read((m) =>
      m.findAndCount(BillableMetric, {
        where,
        order: { createdAt: 'DESC', id: 'DESC' },
        take: query.limit,
        skip: query.offset,
      }),
    );
    return toListResponse(metrics.map(toBillableMetricResponse), total, query);
  }

  /** Changes name, description and unit; If-Match guards against lost updates. */
  async update(
    organizationId: string,
    id: string,
    dto: UpdateBillableMetricDto,
    ifMatch?: string,
  ): Promise<BillableMetricResponse> {
    if (!isIdOf(ID_PREFIXES.billableMetric, id)) throw new NotFoundError('billable metric', id);
    return this.db.transaction(async (m) => {
      const metric = await m.findOne(BillableMetric, {
        where: { id, organizationId },
        lock: this.db.rowLock,
      });
      if (!metric) throw new NotFoundError('billable metric', id);
      assertIfMatch(ifMatch, toBillableMetricResponse(metric));

      const changes = {
        name: dto.name ?? metric.name,
        description:
          dto.description === undefined
            ? metric.description
            : normalizeDescription(dto.description),
        unit: dto.unit ?? metric.unit,
      };
      const unchanged =
        changes.name === metric.name &&
        changes.description === metric.description &&
        changes.unit === metric.unit;
      // A PATCH that changes nothing leaves updatedAt, and so the ETag, as they were.
      if (unchanged) return toBillableMetricResponse(metric);

      Object.assign(metric, changes, { updatedAt: new Date() });
      await m.update(
        BillableMetric,
        { id, organizationId },
        { ...changes, updatedAt: metric.updatedAt },
      );
      return toBillableMetricResponse(metric);
    });
  }
}
