import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { CatalogService } from '../catalog/catalog.service';
import { Tenant } from '../common/tenant';
import { EventsService } from '../events/events.service';
import { Caller } from '../platform/caller';
import { PriceResponse, toPriceResponse } from './dto/price.response';
import { Plan } from './entities/plan.entity';
import { Price } from './entities/price.entity';
import { PriceCandidate, assertPricesUsable } from './plan-price-list';
import { PriceInUseError } from './plans.errors';
import { PricesRepository } from './prices.repository';

export type LoadedPrice = Price & PriceCandidate;

/**
 * The attachment of prices to a plan, for PlansService: a price is taken by a conditional write
 * (only while its plan_id is null) whose row count is checked, so two plans racing for one free
 * price cannot both get it: on PostgreSQL the loser's write waits for the winner's row lock and
 * then matches nothing; on SQLite writes are serialized. Each price taken or freed records
 * `price.updated`.
 */
@Injectable()
export class PlanPricesService {
  constructor(
    private readonly prices: PricesRepository,
    private readonly catalog: CatalogService,
    private readonly events: EventsService,
  ) {}

  /**
   * Validates the new list, frees the prices left out, takes the new ones and reorders; records
   * `price.updated` for each price taken or freed. Returns the plan's prices and the instant
   * written as their (and the plan's) updatedAt.
   */
  async replace(
    m: EntityManager,
    caller: Caller,
    plan: Plan,
    current: Price[],
    priceIds: string[],
  ): Promise<{ prices: Price[]; now: Date }> {
    const found = await this.load(m, caller.principal, priceIds, true);
    assertPricesUsable(priceIds, found, plan.productId, plan.id);
    // Once every price written is locked, so that no price's updatedAt goes back in time.
    const now = new Date();
    const wanted = new Set(priceIds);
    const dropped = current.filter((p) => !wanted.has(p.id));
    const droppedIds = dropped.map((p) => p.id);
    if (droppedIds.length > 0) await this.prices.free(m, plan.id, droppedIds, now);
    const prices = priceIds.map((pid) => found.get(pid)!);
    const pricesBefore = prices.map(toPriceResponse);
    await this.attach(m, plan, prices, now);
    const freed = dropped.map((p) => ({ ...p, planId: null, planPosition: null, updatedAt: now }));
    const before = [...dropped.map(toPriceResponse), ...pricesBefore];
    await this.recordChanges(m, caller, before, [...freed, ...prices]);
    return { prices, now };
  }

  /** `price.updated` for each price whose view changed (its plan), in the order given. */
  async recordChanges(
    m: EntityManager,
    caller: Caller,
    before: PriceResponse[],
    after: Price[],
  ): Promise<void> {
    const type = 'price.updated';
    for (const [i, price] of after.entries()) {
      await this.events.recordUpdate(m, { ...caller, type }, before[i], toPriceResponse(price));
    }
  }

  /**
   * Makes `prices` the plan's list, in this order: takes the free ones (one conditional UPDATE; a
   * count short of them means another plan or a delete got there first: 409) and moves those
   * already in the plan to their new positions. Updates the loaded entities to match.
   */
  async attach(m: EntityManager, plan: Plan, prices: LoadedPrice[], now: Date): Promise<void> {
    const planId = plan.id;
    const positions = new Map(prices.map((p, i) => [p.id, i]));
    const free = prices.filter((p) => p.planId === null);
    const moved = prices
      .filter((p, i) => p.planId === planId && p.planPosition !== i)
      .map((p) => p.id);
    if (free.length > 0) {
      const ids = free.map((p) => p.id);
      const taken = await this.prices.take(m, planId, ids, positions, now);
      if (taken !== ids.length) {
        // Lost a race: say which prices were taken (or deleted) in the meantime.
        const latest = await this.load(m, plan, ids);
        assertPricesUsable(ids, latest, plan.productId, planId);
        throw new PriceInUseError('A listed price was taken by another plan; list another price');
      }
      for (const p of free) Object.assign(p, { planId, updatedAt: now });
    }
    if (moved.length > 0) await this.prices.reorder(m, planId, moved, positions);
    for (const p of prices) p.planPosition = positions.get(p.id)!;
  }

  /**
   * The listed prices of the tenant, each with the product of its billable metric (which
   * the catalog answers, in the same transaction); locked on PostgreSQL when `lock` is set.
   */
  async load(
    m: EntityManager,
    tenant: Tenant,
    ids: string[],
    lock = false,
  ): Promise<Map<string, LoadedPrice>> {
    if (ids.length === 0) return new Map();
    const prices = await this.prices.findMany(m, tenant, ids, lock);
    const metricIds = prices.map((p) => p.billableMetricId);
    const products = await this.catalog.productsOfMetrics(m, tenant, metricIds);
    const loaded = new Map<string, LoadedPrice>();
    for (const price of prices) {
      const metricProductId = products.get(price.billableMetricId);
      if (metricProductId !== undefined) loaded.set(price.id, { ...price, metricProductId });
    }
    return loaded;
  }
}
