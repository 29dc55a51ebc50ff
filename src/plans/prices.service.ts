import { Injectable } from '@nestjs/common';
import { CatalogService } from '../catalog/catalog.service';
import { assertIfMatch } from '../common/etag';
import { FieldError, NotFoundError, ValidationFailedError } from '../common/errors';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { Database } from '../database/database';
import { lockedUpdate, sameValue } from '../database/locked-update';
import { EntityManager } from 'typeorm';
import { Tenant } from '../common/tenant';
import { Caller } from '../platform/caller';
import { EventsService } from '../events/events.service';
import { CreatePriceDto } from './dto/create-price.dto';
import { ListPricesQueryDto } from './dto/list-prices-query.dto';
import { PriceResponse, toPriceResponse } from './dto/price.response';
import { UpdatePriceDto } from './dto/update-price.dto';
import { Price } from './entities/price.entity';
import { parsePriceProperties } from './price-properties';
import { PlanInUseError, PriceDeletedError, PriceInUseError } from './plans.errors';
import { PlansRepository } from './plans.repository';
import { PricesRepository } from './prices.repository';

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
  constructor(
    private readonly db: Database,
    private readonly prices: PricesRepository,
    private readonly plans: PlansRepository,
    private readonly catalog: CatalogService,
    private readonly events: EventsService,
  ) {}

  async create(caller: Caller, dto: CreatePriceDto): Promise<PriceResponse> {
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
      organizationId: caller.principal.organizationId,
      livemode: caller.principal.livemode,
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
      if (!(await this.catalog.hasBillableMetric(m, caller.principal, dto.billableMetricId))) {
        throw new ValidationFailedError([billableMetricNotFound(dto.billableMetricId)]);
      }
      await this.prices.insert(m, price);
      const response = toPriceResponse(price);
      await this.events.record(m, { ...caller, type: 'price.created', object: response });
      return response;
    }, caller.commit);
  }

  async get(tenant: Tenant, id: string): Promise<PriceResponse> {
    const price = isIdOf(ID_PREFIXES.price, id)
      ? await this.db.read((m) => this.prices.find(m, tenant, id))
      : null;
    if (!price) throw new NotFoundError('price', id);
    return toPriceResponse(price);
  }

  async list(tenant: Tenant, query: ListPricesQueryDto): Promise<ListResponse<PriceResponse>> {
    const [rows, total] = await this.db.snapshot((m) => this.prices.page(m, tenant, query));
    return toListResponse(rows.map(toPriceResponse), total, query);
  }

  /**
   * `properties`, when sent, replaces the old properties as a whole and is validated against the
   * price's model. A price in a plan may change; the plan then shows the new values.
   */
  async update(
    caller: Caller,
    id: string,
    dto: UpdatePriceDto,
    ifMatch?: string,
  ): Promise<PriceResponse> {
    if (!isIdOf(ID_PREFIXES.price, id)) throw new NotFoundError('price', id);
    return this.db.transaction(
      (m) =>
        lockedUpdate({
          load: () => this.prices.find(m, caller.principal, id, true),
          notFound: () => new NotFoundError('price', id),
          refuse: (price) => {
            if (price.deletedAt) throw new PriceDeletedError(price.id);
          },
          view: toPriceResponse,
          ifMatch,
          changes: async (price) => {
            if (dto.properties === undefined) return { invoiceDisplayName: dto.invoiceDisplayName };
            const parsed = parsePriceProperties(price.model, dto.properties);
            if (!parsed.ok) throw new ValidationFailedError(parsed.errors);
            if (!sameValue(parsed.properties, price.properties)) {
              await this.assertPlanNotInUse(
                m,
                caller,
                price,
                "its prices' properties cannot change",
              );
            }
            return { invoiceDisplayName: dto.invoiceDisplayName, properties: parsed.properties };
          },
          write: (price, changed) => this.prices.update(m, price.id, changed),
          written: (before, after) =>
            this.events.recordUpdate(m, { ...caller, type: 'price.updated' }, before, after),
        }),
      caller.commit,
    );
  }

  /** Soft delete. A price in a live plan is refused; deleting a deleted price is a no-op. */
  async remove(caller: Caller, id: string, ifMatch?: string): Promise<void> {
    if (!isIdOf(ID_PREFIXES.price, id)) throw new NotFoundError('price', id);
    await this.db.transaction(async (m) => {
      const price = await this.prices.find(m, caller.principal, id, true);
      if (!price) throw new NotFoundError('price', id);
      if (price.deletedAt) return;
      assertIfMatch(ifMatch, toPriceResponse(price));
      await this.assertPlanNotInUse(m, caller, price, 'its prices cannot be deleted');
      if (price.planId !== null) {
        throw new PriceInUseError(
          `Price ${price.id} is in plan ${price.planId}; remove it from the plan (PATCH /v0/plans/${price.planId}) or delete the plan first`,
        );
      }
      const now = new Date();
      await this.prices.update(m, price.id, { deletedAt: now, updatedAt: now });
      const object = toPriceResponse({ ...price, deletedAt: now, updatedAt: now });
      await this.events.record(m, { ...caller, type: 'price.deleted', object });
    }, caller.commit);
  }

  /**
   * 409 PLAN_IN_USE when the price's plan has active or pending subscriptions (docs/api.md
   * §5.3). The plan is locked, so a subscription to it waits for this write, and this one for it.
   */
  private async assertPlanNotInUse(
    m: EntityManager,
    caller: Caller,
    price: Price,
    what: string,
  ): Promise<void> {
    if (price.planId === null) return;
    const plan = await this.plans.find(m, caller.principal, price.planId, true);
    if (plan && !plan.deletedAt && plan.subscriptionCount > 0) {
      throw new PlanInUseError(plan.id, what);
    }
  }
}
