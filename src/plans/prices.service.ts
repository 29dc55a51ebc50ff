import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, IsNull } from 'typeorm';
import { BillableMetric } from '../catalog/entities/billable-metric.entity';
import { FieldError, NotFoundError, ValidationFailedError } from '../common/errors';
import { assertIfMatch } from '../common/http/etag';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { Database } from '../database/database.service';
import { CreatePriceDto } from './dto/create-price.dto';
import { ListPricesQueryDto } from './dto/list-prices-query.dto';
import { PriceResponse } from './dto/price.response';
import { UpdatePriceDto } from './dto/update-price.dto';
import { Price } from './entities/price.entity';
import { canonicalProperties, parsePriceProperties } from './price-properties';
import { PriceDeletedError, PriceInUseError } from './plans.errors';

/** The API view of a price (API.md section 5.3). */
export function toPriceResponse(p: Price): PriceResponse {
  return {
    id: p.id,
    object: 'price',
    billableMetricId: p.billableMetricId,
    model: p.model,
    invoiceDisplayName: p.invoiceDisplayName,
    properties: canonicalProperties(p.model, p.properties),
    planId: p.planId,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
    deletedAt: p.deletedAt ? p.deletedAt.toISOString() : null,
  };
}

function billableMetricNotFound(id: string): FieldError {
  return {
    field: 'billableMetricId',
    code: 'billable_metric_not_found',
    message: `no billable metric '${id}' in your organization`,
  };
}

/**
 * Prices: created free, taken by at most one plan (PlansService attaches and frees them), and
 * deleted softly. Amounts stay the strings the client sent.
 */
@Injectable()
export class PricesService {
  constructor(private readonly db: Database) {}

  async create(organizationId: string, dto: CreatePriceDto): Promise<PriceResponse> {
    const errors: FieldError[] = [];
    if (!isIdOf(ID_PREFIXES.billableMetric, dto.billableMetricId)) {
      errors.push(billableMetricNotFound(dto.billableMetricId));
    }
    const parsed = parsePriceProperties(dto.model, dto.properties);
    if (!parsed.ok) errors.push(...parsed.errors);
    if (errors.length > 0 || !parsed.ok) throw new ValidationFailedError(errors);

    const now = new Date();
    const price: Price = {
      id: newId(ID_PREFIXES.price),
      organizationId,
      billableMetricId: dto.billableMetricId,
      planId: null,
      planPosition: null,
      model: dto.model,
      invoiceDisplayName: dto.invoiceDisplayName,
      properties: parsed.properties,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    // The transaction returns the response: with an Idempotency-Key it is stored in the same commit.
    return this.db.transaction(async (m) => {
      const metric = await m.exists(BillableMetric, {
        where: { id: dto.billableMetricId, organizationId },
      });
      if (!metric) throw new ValidationFailedError([billableMetricNotFound(dto.billableMetricId)]);
      await m.insert(Price, price);
      return toPriceResponse(price);
    });
  }

  async get(organizationId: string, id: string): Promise<PriceResponse> {
    const price = await this.db.read((m) => this.find(m, organizationId, id));
    return toPriceResponse(price);
  }

  async list(
    organizationId: string,
    query: ListPricesQueryDto,
  ): Promise<ListResponse<PriceResponse>> {
    const where: FindOptionsWhere<Price> = { organizationId };
    if (query.billableMetricId) where.billableMetricId = query.billableMetricId;
    if (query.planId) where.planId = query.planId;
    if (!query.includeDeleted) where.deletedAt = IsNull();
    const [rows, total] = await this.db.read((m) =>
      m.findAndCount(Price, {
        where,
        order: { createdAt: 'DESC', id: 'DESC' },
        take: query.limit,
        skip: query.offset,
      }),
    );
    return toListResponse(rows.map(toPriceResponse), total, query);
  }

  /**
   * `properties`, when sent, replaces the old properties as a whole and is validated against the
   * price's model. A price in a plan may change; the plan then shows the new values.
   */
  async update(
    organizationId: string,
    id: string,
    dto: UpdatePriceDto,
    ifMatch?: string,
  ): Promise<PriceResponse> {
    return this.db.transaction(async (m) => {
      const price = await this.find(m, organizationId, id, true);
      if (price.deletedAt) throw new PriceDeletedError(price.id);
      assertIfMatch(ifMatch, toPriceResponse(price));

      const changes: Partial<Price> = {};
      if (dto.invoiceDisplayName !== undefined) {
        changes.invoiceDisplayName = dto.invoiceDisplayName;
      }
      if (dto.properties !== undefined) {
        const parsed = parsePriceProperties(price.model, dto.properties);
        if (!parsed.ok) throw new ValidationFailedError(parsed.errors);
        changes.properties = parsed.properties;
      }
      const current = toPriceResponse(price);
      const next = toPriceResponse({ ...price, ...changes });
      if (JSON.stringify(current) === JSON.stringify(next)) return current;

      changes.updatedAt = new Date();
      await m.update(Price, { id: price.id }, changes);
      return toPriceResponse({ ...price, ...changes });
    });
  }

  /** Soft delete. A price in a live plan is refused; deleting a deleted price is a no-op. */
  async remove(organizationId: string, id: string, ifMatch?: string): Promise<void> {
    await this.db.transaction(async (m) => {
      const price = await this.find(m, organizationId, id, true);
      if (price.deletedAt) return;
      assertIfMatch(ifMatch, toPriceResponse(price));
      if (price.planId !== null) {
        throw new PriceInUseError(
          `Price ${price.id} is in plan ${price.planId}; remove it from the plan (PATCH /v0/plans/${price.planId}) or delete the plan first`,
        );
      }
      const now = new Date();
      await m.update(Price, { id: price.id }, { deletedAt: now, updatedAt: now });
    });
  }

  private async find(
    m: EntityManager,
    organizationId: string,
    id: string,
    lock = false,
  ): Promise<Price> {
    if (!isIdOf(ID_PREFIXES.price, id)) throw new NotFoundError('price', id);
    const price = await m.findOne(Price, {
      where: { id, organizationId },
      lock: lock ? this.db.rowLock : undefined,
    });
    if (!price) throw new NotFoundError('price', id);
    return price;
  }
}
