import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { CatalogService } from '../catalog/catalog.service';
import { assertIfMatch } from '../common/etag';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { assertOwnMerchant } from '../common/merchant';
import { normalizeDescription } from '../common/text';
import { Database } from '../database/database';
import { lockedUpdate } from '../database/locked-update';
import { Tenant } from '../common/tenant';
import { Caller } from '../platform/caller';
import { EventsService } from '../events/events.service';
import { CreatePlanDto } from './dto/create-plan.dto';
import { ListPlansQueryDto } from './dto/list-plans-query.dto';
import { PlanResponse, toPlanResponse } from './dto/plan.response';
import { toPriceResponse } from './dto/price.response';
import { UpdatePlanDto } from './dto/update-plan.dto';
import { BillingInterval, Plan } from './entities/plan.entity';
import { Price } from './entities/price.entity';
import { assertPricesUsable, checkPriceIdList } from './plan-price-list';
import { PlanPricesService } from './plan-prices.service';
import { PlanDeletedError, PlanInUseError } from './plans.errors';
import { PlansRepository } from './plans.repository';
import { PricesRepository } from './prices.repository';

/** What a subscription needs of its plan (PlansService.forSubscription). */
export interface SubscribablePlan {
  id: string;
  currency: string;
  billingInterval: BillingInterval;
  /** The billable metrics the plan's prices measure (one subscription per metric). */
  metricIds: string[];
}

function productNotFound(id: string): ValidationFailedError {
  return ValidationFailedError.field(
    'productId',
    'product_not_found',
    `no product '${id}' in your organization`,
  );
}

/**
 * Plans: every write is one transaction; PlanPricesService attaches, frees and reorders their
 * prices in it.
 */
@Injectable()
export class PlansService {
  constructor(
    private readonly db: Database,
    private readonly plans: PlansRepository,
    private readonly prices: PricesRepository,
    private readonly catalog: CatalogService,
    private readonly events: EventsService,
    private readonly planPrices: PlanPricesService,
  ) {}

  async create(caller: Caller, dto: CreatePlanDto): Promise<PlanResponse> {
    const tenant = caller.principal;
    assertOwnMerchant(tenant.organizationId, dto.merchantId);
    if (!isIdOf(ID_PREFIXES.product, dto.productId)) throw productNotFound(dto.productId);
    const priceIds = checkPriceIdList(dto.prices ?? []);

    return this.db.transaction(async (m) => {
      if (!(await this.catalog.hasProduct(m, tenant, dto.productId))) {
        throw productNotFound(dto.productId);
      }
      // Locked: the answer and the events show these prices as they are when taken.
      const found = await this.planPrices.load(m, tenant, priceIds, true);
      assertPricesUsable(priceIds, found, dto.productId, null);
      // Once the prices are locked, so that no price's updatedAt goes back in time.
      const now = new Date();
      const plan: Plan = {
        id: newId(ID_PREFIXES.plan),
        organizationId: tenant.organizationId,
        livemode: tenant.livemode,
        productId: dto.productId,
        name: dto.name,
        invoiceDisplayName: dto.invoiceDisplayName ?? dto.name,
        description: normalizeDescription(dto.description),
        billingInterval: dto.billingInterval,
        currency: dto.currency ?? 'USD',
        taxBehavior: dto.tax?.behavior ?? 'exclusive',
        taxCode: dto.tax?.code ?? null,
        taxRate: dto.tax?.rate ?? '0',
        fixedFee: dto.fixedFee ?? null,
        subscriptionCount: 0,
        createdAt: now,
        updatedAt: now,
        deletedAt: null,
      };
      await this.plans.insert(m, plan);
      const prices = priceIds.map((id) => found.get(id)!);
      const pricesBefore = prices.map(toPriceResponse);
      await this.planPrices.attach(m, plan, prices, now);
      await this.plans.count(m, plan, 0, +1);
      const response = toPlanResponse(plan, prices);
      await this.events.record(m, { ...caller, type: 'plan.created', object: response });
      await this.planPrices.recordChanges(m, caller, pricesBefore, prices);
      return response;
    }, caller.commit);
  }

  async get(tenant: Tenant, id: string): Promise<PlanResponse> {
    // Two statements (the plan, its prices) that must show one state: a snapshot.
    return this.db.snapshot(async (m) => {
      const plan = await this.find(m, tenant, id);
      return toPlanResponse(plan, await this.prices.ofPlan(m, plan.id));
    });
  }

  async list(tenant: Tenant, query: ListPlansQueryDto): Promise<ListResponse<PlanResponse>> {
    assertOwnMerchant(tenant.organizationId, query.merchantId);
    // The page, its total and the plans' prices, in one snapshot.
    return this.db.snapshot(async (m) => {
      const [plans, total] = await this.plans.page(m, tenant, query);
      const planIds = plans.map((p) => p.id);
      const prices = await this.pricesOfPlans(m, planIds);
      const data = plans.map((p) => toPlanResponse(p, prices.get(p.id)!));
      return toListResponse(data, total, query);
    });
  }

  /**
   * Changes the fields sent; `tax` is merged key by key and `prices` replaces the list (prices
   * left out become free). A request that changes nothing writes nothing.
   */
  async update(
    caller: Caller,
    id: string,
    dto: UpdatePlanDto,
    ifMatch?: string,
  ): Promise<PlanResponse> {
    const priceIds = dto.prices === undefined ? undefined : checkPriceIdList(dto.prices);
    if (!isIdOf(ID_PREFIXES.plan, id)) throw new NotFoundError('plan', id);
    return this.db.transaction(async (m) => {
      let prices: Price[] = [];
      return lockedUpdate({
        load: async () => {
          const plan = await this.plans.find(m, caller.principal, id, true);
          if (plan) prices = await this.prices.ofPlanForWrite(m, plan.id, priceIds);
          return plan;
        },
        notFound: () => new NotFoundError('plan', id),
        refuse: (plan) => {
          if (plan.deletedAt) throw new PlanDeletedError(plan.id);
        },
        view: (plan) => toPlanResponse(plan, prices),
        ifMatch,
        changes: async (plan) => {
          const changes: Partial<Plan> = {
            name: dto.name ?? undefined,
            invoiceDisplayName: dto.invoiceDisplayName ?? undefined,
            description:
              dto.description === undefined ? undefined : normalizeDescription(dto.description),
            billingInterval: dto.billingInterval ?? undefined,
            taxBehavior: dto.tax?.behavior ?? undefined,
            taxCode: dto.tax?.code,
            taxRate: dto.tax?.rate ?? undefined,
            fixedFee: dto.fixedFee,
          };
          const listChanged =
            priceIds !== undefined &&
            (priceIds.length !== prices.length || priceIds.some((pid, i) => pid !== prices[i].id));
          assertTermsMayChange(plan, changes, listChanged);
          if (listChanged) {
            // The plan's updatedAt moves with its prices', to the same instant.
            const replaced = await this.planPrices.replace(m, caller, plan, prices, priceIds);
            prices = replaced.prices;
            changes.updatedAt = replaced.now;
          }
          return changes;
        },
        write: (plan, changed) => this.plans.update(m, plan.id, changed),
        written: (before, after) =>
          this.events.recordUpdate(m, { ...caller, type: 'plan.updated' }, before, after),
      });
    }, caller.commit);
  }

  /** Soft delete of the plan and its prices. Deleting a deleted plan answers it again. */
  async remove(caller: Caller, id: string, ifMatch?: string): Promise<PlanResponse> {
    return this.db.transaction(async (m) => {
      const plan = await this.find(m, caller.principal, id, true);
      const prices = await this.prices.ofPlanForWrite(m, plan.id);
      if (plan.deletedAt) return toPlanResponse(plan, prices);
      assertIfMatch(ifMatch, toPlanResponse(plan, prices));
      if (plan.subscriptionCount > 0) throw new PlanInUseError(plan.id, 'it cannot be deleted');

      const now = new Date();
      await this.plans.update(m, plan.id, { deletedAt: now, updatedAt: now });
      await this.prices.deleteOfPlan(m, plan.id, now);
      await this.plans.count(m, plan, 0, -1);
      await this.plans.count(m, plan, 1, +1);
      for (const price of prices) Object.assign(price, { deletedAt: now, updatedAt: now });
      const response = toPlanResponse({ ...plan, deletedAt: now, updatedAt: now }, prices);
      await this.events.record(m, { ...caller, type: 'plan.deleted', object: response });
      // The plan's prices are deleted with it: one event for each.
      for (const price of prices) {
        const object = toPriceResponse(price);
        await this.events.record(m, { ...caller, type: 'price.deleted', object });
      }
      return response;
    }, caller.commit);
  }

  /**
   * The live plan a subscription names, locked, so that a plan write and a subscription write
   * take turns (a frozen plan stays frozen): 400 PLAN_NOT_FOUND on `planId` when it is not the
   * tenant's or was deleted. With the billable metrics its prices measure.
   */
  async forSubscription(m: EntityManager, tenant: Tenant, id: string): Promise<SubscribablePlan> {
    const plan = isIdOf(ID_PREFIXES.plan, id) ? await this.plans.find(m, tenant, id, true) : null;
    if (!plan || plan.deletedAt) {
      throw ValidationFailedError.field(
        'planId',
        'plan_not_found',
        `no plan '${id}' in your organization (in this mode), or it was deleted`,
        'PLAN_NOT_FOUND',
      );
    }
    const prices = await this.prices.ofPlan(m, plan.id);
    return {
      id: plan.id,
      currency: plan.currency,
      billingInterval: plan.billingInterval,
      metricIds: prices.map((p) => p.billableMetricId),
    };
  }

  /** The billable metrics each plan's prices measure, by plan id. */
  async metricsOfPlans(m: EntityManager, planIds: string[]): Promise<Map<string, string[]>> {
    const prices = await this.pricesOfPlans(m, planIds);
    return new Map([...prices].map(([id, list]) => [id, list.map((p) => p.billableMetricId)]));
  }

  /** Adds `delta` to the plan's count of active and pending subscriptions (its freeze). */
  countSubscriptions(m: EntityManager, planId: string, delta: number): Promise<void> {
    return this.plans.addSubscriptions(m, planId, delta);
  }

  /** The prices of each plan, in plan order, by plan id. */
  private async pricesOfPlans(m: EntityManager, planIds: string[]): Promise<Map<string, Price[]>> {
    const byPlan = new Map<string, Price[]>(planIds.map((id) => [id, []]));
    if (planIds.length === 0) return byPlan;
    for (const price of await this.prices.ofPlans(m, planIds))
      byPlan.get(price.planId!)?.push(price);
    return byPlan;
  }

  private async find(m: EntityManager, tenant: Tenant, id: string, lock = false): Promise<Plan> {
    if (!isIdOf(ID_PREFIXES.plan, id)) throw new NotFoundError('plan', id);
    const plan = await this.plans.find(m, tenant, id, lock);
    if (!plan) throw new NotFoundError('plan', id);
    return plan;
  }
}

/** The billing terms of a plan: frozen while it has active or pending subscriptions. */
const FROZEN_TERMS = ['billingInterval', 'taxBehavior', 'taxCode', 'taxRate', 'fixedFee'] as const;

/** 409 PLAN_IN_USE when a plan in use would change a billing term or its price list. */
function assertTermsMayChange(plan: Plan, changes: Partial<Plan>, listChanged: boolean): void {
  if (plan.subscriptionCount === 0) return;
  const changed = FROZEN_TERMS.filter(
    (key) => changes[key] !== undefined && changes[key] !== plan[key],
  );
  if (listChanged || changed.length > 0) {
    throw new PlanInUseError(
      plan.id,
      'its billingInterval, tax, fixedFee and prices cannot change',
    );
  }
}
