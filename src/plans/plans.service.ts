import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, In, IsNull } from 'typeorm';
import { BillableMetric } from '../catalog/entities/billable-metric.entity';
import { Product } from '../catalog/entities/product.entity';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { assertIfMatch } from '../common/http/etag';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { assertOwnMerchant } from '../common/merchant';
import { Database } from '../database/database.service';
import { CreatePlanDto } from './dto/create-plan.dto';
import { ListPlansQueryDto } from './dto/list-plans-query.dto';
import { PlanResponse } from './dto/plan.response';
import { UpdatePlanDto } from './dto/update-plan.dto';
import { Plan } from './entities/plan.entity';
import { Price } from './entities/price.entity';
import { PriceCandidate, assertPricesUsable, checkPriceIdList } from './plan-price-list';
import { PlanDeletedError, PriceInUseError } from './plans.errors';
import { toPriceResponse } from './prices.service';

/** The API view of a plan (the seed's section 2.1) with its prices in full, in plan order. */
export function toPlanResponse(plan: Plan, prices: Price[]): PlanResponse {
  return {
    id: plan.id,
    object: 'plan',
    name: plan.name,
    invoiceDisplayName: plan.invoiceDisplayName,
    description: plan.description,
    billingInterval: plan.billingInterval,
    currency: plan.currency,
    merchantId: plan.organizationId,
    productId: plan.productId,
    tax: { behavior: plan.taxBehavior, code: plan.taxCode, rate: plan.taxRate },
    prices: prices.map(toPriceResponse),
    createdAt: plan.createdAt.toISOString(),
    updatedAt: plan.updatedAt.toISOString(),
    deletedAt: plan.deletedAt ? plan.deletedAt.toISOString() : null,
  };
}

type LoadedPrice = Price & PriceCandidate;

function productNotFound(id: string): ValidationFailedError {
  return ValidationFailedError.field(
    'productId',
    'product_not_found',
    `no product '${id}' in your organization`,
  );
}

/**
 * Plans and the attachment of their prices. Every write is one transaction, and a price is
 * taken by a conditional UPDATE (`... AND plan_id IS NULL`) whose row count is checked, so two
 * plans racing for one free price cannot both get it: on PostgreSQL the loser's UPDATE waits
 * for the winner's row lock and then matches nothing; on SQLite writes are serialized.
 */
@Injectable()
export class PlansService {
  constructor(private readonly db: Database) {}

  async create(organizationId: string, dto: CreatePlanDto): Promise<PlanResponse> {
    assertOwnMerchant(organizationId, dto.merchantId);
    if (!isIdOf(ID_PREFIXES.product, dto.productId)) throw productNotFound(dto.productId);
    const priceIds = checkPriceIdList(dto.prices ?? []);

    const now = new Date();
    const plan: Plan = {
      id: newId(ID_PREFIXES.plan),
      organizationId,
      productId: dto.productId,
      name: dto.name,
      invoiceDisplayName: dto.invoiceDisplayName ?? dto.name,
      description: dto.description ?? null,
      billingInterval: dto.billingInterval,
      currency: dto.currency ?? 'USD',
      taxBehavior: dto.tax?.behavior ?? 'exclusive',
      taxCode: dto.tax?.code ?? null,
      taxRate: dto.tax?.rate ?? '0',
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    return this.db.transaction(async (m) => {
      const product = await m.exists(Product, { where: { id: plan.productId, organizationId } });
      if (!product) throw productNotFound(plan.productId);
      const found = await this.loadPrices(m, organizationId, priceIds);
      assertPricesUsable(priceIds, found, plan.productId, null);
      await m.insert(Plan, plan);
      const prices = priceIds.map((id) => found.get(id)!);
      await this.attach(m, plan, prices, new Map(), now);
      return toPlanResponse(plan, prices);
    });
  }

  async get(organizationId: string, id: string): Promise<PlanResponse> {
    return this.db.read(async (m) => {
      const plan = await this.find(m, organizationId, id);
      return toPlanResponse(plan, await this.pricesOf(m, plan.id));
    });
  }

  async list(
    organizationId: string,
    query: ListPlansQueryDto,
  ): Promise<ListResponse<PlanResponse>> {
    assertOwnMerchant(organizationId, query.merchantId);
    const where: FindOptionsWhere<Plan> = { organizationId };
    if (query.productId) where.productId = query.productId;
    if (!query.includeDeleted) where.deletedAt = IsNull();
    return this.db.read(async (m) => {
      const [plans, total] = await m.findAndCount(Plan, {
        where,
        order: { createdAt: 'DESC', id: 'DESC' },
        take: query.limit,
        skip: query.offset,
      });
      const prices =
        plans.length === 0
          ? []
          : await m.find(Price, {
              where: { planId: In(plans.map((p) => p.id)) },
              order: { planPosition: 'ASC' },
            });
      const byPlan = new Map<string, Price[]>(plans.map((p) => [p.id, []]));
      for (const price of prices) byPlan.get(price.planId!)?.push(price);
      const data = plans.map((p) => toPlanResponse(p, byPlan.get(p.id)!));
      return toListResponse(data, total, query);
    });
  }

  /**
   * Changes the fields sent; `tax` is merged key by key and `prices` replaces the list (prices
   * left out become free). A request that changes nothing writes nothing.
   */
  async update(
    organizationId: string,
    id: string,
    dto: UpdatePlanDto,
    ifMatch?: string,
  ): Promise<PlanResponse> {
    const priceIds = dto.prices === undefined ? undefined : checkPriceIdList(dto.prices);
    return this.db.transaction(async (m) => {
      const plan = await this.find(m, organizationId, id, true);
      if (plan.deletedAt) throw new PlanDeletedError(plan.id);
      const current = await this.pricesOf(m, plan.id);
      const before = toPlanResponse(plan, current);
      assertIfMatch(ifMatch, before);

      const next: Plan = {
        ...plan,
        name: dto.name ?? plan.name,
        invoiceDisplayName: dto.invoiceDisplayName ?? plan.invoiceDisplayName,
        description: dto.description !== undefined ? dto.description : plan.description,
        billingInterval: dto.billingInterval ?? plan.billingInterval,
        taxBehavior: dto.tax?.behavior ?? plan.taxBehavior,
        taxCode: dto.tax?.code !== undefined ? dto.tax.code : plan.taxCode,
        taxRate: dto.tax?.rate ?? plan.taxRate,
      };
      const now = new Date();
      let prices = current;
      const listChanged =
        priceIds !== undefined &&
        (priceIds.length !== current.length || priceIds.some((pid, i) => pid !== current[i].id));
      if (listChanged) prices = await this.replacePrices(m, next, current, priceIds, now);

      const fieldsChanged =
        JSON.stringify({ ...toPlanResponse(next, []), prices: [] }) !==
        JSON.stringify({ ...before, prices: [] });
      if (!fieldsChanged && !listChanged) return before;

      next.updatedAt = now;
      await m.update(
        Plan,
        { id: plan.id },
        {
          name: next.name,
          invoiceDisplayName: next.invoiceDisplayName,
          description: next.description,
          billingInterval: next.billingInterval,
          taxBehavior: next.taxBehavior,
          taxCode: next.taxCode,
          taxRate: next.taxRate,
          updatedAt: now,
        },
      );
      return toPlanResponse(next, prices);
    });
  }

  /** Soft delete of the plan and its prices. Deleting a deleted plan answers it again. */
  async remove(organizationId: string, id: string, ifMatch?: string): Promise<PlanResponse> {
    return this.db.transaction(async (m) => {
      const plan = await this.find(m, organizationId, id, true);
      const prices = await this.pricesOf(m, plan.id);
      if (plan.deletedAt) return toPlanResponse(plan, prices);
      assertIfMatch(ifMatch, toPlanResponse(plan, prices));

      const now = new Date();
      await m.update(Plan, { id: plan.id }, { deletedAt: now, updatedAt: now });
      await m.update(
        Price,
        { planId: plan.id, deletedAt: IsNull() },
        { deletedAt: now, updatedAt: now },
      );
      for (const price of prices) Object.assign(price, { deletedAt: now, updatedAt: now });
      return toPlanResponse({ ...plan, deletedAt: now, updatedAt: now }, prices);
    });
  }

  /** Validates the new list, frees the prices left out, takes the new ones and reorders. */
  private async replacePrices(
    m: EntityManager,
    plan: Plan,
    current: Price[],
    priceIds: string[],
    now: Date,
  ): Promise<Price[]> {
    const found = await this.loadPrices(m, plan.organizationId, priceIds);
    assertPricesUsable(priceIds, found, plan.productId, plan.id);
    const wanted = new Set(priceIds);
    const dropped = current.filter((p) => !wanted.has(p.id));
    if (dropped.length > 0) {
      await m
        .createQueryBuilder()
        .update(Price)
        .set({ planId: null, planPosition: null, updatedAt: now })
        .where('id IN (:...ids)', { ids: dropped.map((p) => p.id) })
        .andWhere('plan_id = :planId', { planId: plan.id })
        .execute();
    }
    const prices = priceIds.map((pid) => found.get(pid)!);
    const kept = new Map<string, number>();
    prices.forEach((p, i) => {
      if (p.planId === plan.id && p.planPosition !== i) kept.set(p.id, i);
    });
    await this.attach(
      m,
      plan,
      prices.filter((p) => p.planId === null),
      kept,
      now,
      prices,
    );
    return prices;
  }

  /**
   * Takes free prices into the plan (one conditional UPDATE; a count short of the list means
   * another plan or a delete got there first: 409) and moves `reordered` prices already in the
   * plan to their new positions. Updates the loaded entities to match what was written.
   */
  private async attach(
    m: EntityManager,
    plan: Plan,
    free: LoadedPrice[],
    reordered: Map<string, number>,
    now: Date,
    order: Price[] = free,
  ): Promise<void> {
    const { id: planId, organizationId } = plan;
    const positions = new Map(order.map((p, i) => [p.id, i]));
    const positionCase = (ids: string[]) =>
      `CASE "id" ${ids.map((_, i) => `WHEN :pid${i} THEN ${positions.get(ids[i])}`).join(' ')} END`;
    const idParams = (ids: string[]) => Object.fromEntries(ids.map((pid, i) => [`pid${i}`, pid]));

    if (free.length > 0) {
      const ids = free.map((p) => p.id);
      const result = await m
        .createQueryBuilder()
        .update(Price)
        .set({ planId, planPosition: () => positionCase(ids), updatedAt: now })
        .where('id IN (:...ids)', { ids })
        .andWhere('organization_id = :organizationId', { organizationId })
        .andWhere('plan_id IS NULL')
        .andWhere('deleted_at IS NULL')
        .setParameters(idParams(ids))
        .execute();
      if (result.affected !== ids.length) {
        // Lost a race: say which prices were taken (or deleted) in the meantime.
        const latest = await this.loadPrices(m, organizationId, ids);
        assertPricesUsable(ids, latest, plan.productId, planId);
        throw new PriceInUseError('A listed price was taken by another plan; list another price');
      }
      for (const p of free) Object.assign(p, { planId, updatedAt: now });
    }
    if (reordered.size > 0) {
      const ids = [...reordered.keys()];
      await m
        .createQueryBuilder()
        .update(Price)
        .set({ planPosition: () => positionCase(ids) })
        .where('id IN (:...ids)', { ids })
        .andWhere('plan_id = :planId', { planId })
        .setParameters(idParams(ids))
        .execute();
    }
    for (const p of order) p.planPosition = positions.get(p.id)!;
  }

  /** The listed prices of the organization with their metric's product, in one query. */
  private async loadPrices(
    m: EntityManager,
    organizationId: string,
    ids: string[],
  ): Promise<Map<string, LoadedPrice>> {
    if (ids.length === 0) return new Map();
    const { entities, raw } = await m
      .createQueryBuilder(Price, 'p')
      .innerJoin(BillableMetric, 'bm', 'bm.id = p.billableMetricId')
      .addSelect('bm.productId', 'metricProductId')
      .where('p.id IN (:...ids)', { ids })
      .andWhere('p.organizationId = :organizationId', { organizationId })
      .getRawAndEntities<{ p_id: string; metricProductId: string }>();
    const productOf = new Map(raw.map((r) => [r.p_id, r.metricProductId]));
    return new Map(
      entities.map((p) => [p.id, Object.assign(p, { metricProductId: productOf.get(p.id)! })]),
    );
  }

  private pricesOf(m: EntityManager, planId: string): Promise<Price[]> {
    return m.find(Price, { where: { planId }, order: { planPosition: 'ASC' } });
  }

  private async find(
    m: EntityManager,
    organizationId: string,
    id: string,
    lock = false,
  ): Promise<Plan> {
    if (!isIdOf(ID_PREFIXES.plan, id)) throw new NotFoundError('plan', id);
    const plan = await m.findOne(Plan, {
      where: { id, organizationId },
      lock: lock ? this.db.rowLock : undefined,
    });
    if (!plan) throw new NotFoundError('plan', id);
    return plan;
  }
}
