import { Injectable } from '@nestjs/common';
import { EntityManager, IsNull } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { assertIfMatch } from '../common/http/etag';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { assertOwnMerchant } from '../common/merchant';
import { normalizeDescription } from '../common/text';
import { Database } from '../database/database.service';
import { CreatePlanDto } from './dto/create-plan.dto';
import { ListPlansQueryDto } from './dto/list-plans-query.dto';
import { PlanResponse } from './dto/plan.response';
import { UpdatePlanDto } from './dto/update-plan.dto';
import { PLAN_COUNT_SLOTS } from './entities/plan-count.entity';
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
  private statements?: ReturnType<typeof planStatements>;

  constructor(private readonly db: Database) {}

  /** The SQL of the hot paths, built once (the tables' columns are known after start-up). */
  private get sql(): ReturnType<typeof planStatements> {
    return (this.statements ??= planStatements(this.db));
  }

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
      description: normalizeDescription(dto.description),
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
      const product = await this.db.rows(m, this.sql.productExists, [
        plan.productId,
        organizationId,
      ]);
      if (product.length === 0) throw productNotFound(plan.productId);
      const found = await this.loadPrices(m, organizationId, priceIds);
      assertPricesUsable(priceIds, found, plan.productId, null);
      await this.db.execute(m, this.sql.plans.insertSql, this.sql.plans.values(plan));
      const prices = priceIds.map((id) => found.get(id)!);
      await this.attach(m, plan, prices, new Map(), now);
      await this.count(m, plan, 0, +1);
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
    const filter = this.sql.listFilter(!!query.productId, !query.includeDeleted);
    const params: unknown[] = [organizationId];
    if (query.productId) params.push(query.productId);
    return this.db.read(async (m) => {
      const rows = await this.db.rows(m, filter.page, [...params, query.limit, query.offset]);
      const [{ total }] = await this.db.rows<{ total: number | string }>(m, filter.count, params);
      const plans = rows.map((r) => this.sql.plans.fromRow(r));
      const prices = plans.length === 0 ? [] : await this.pricesOfPlans(m, plans);
      const byPlan = new Map<string, Price[]>(plans.map((p) => [p.id, []]));
      for (const price of prices) byPlan.get(price.planId!)?.push(price);
      const data = plans.map((p) => toPlanResponse(p, byPlan.get(p.id)!));
      return toListResponse(data, Number(total), query);
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
        description:
          dto.description !== undefined ? normalizeDescription(dto.description) : plan.description,
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
      await this.count(m, plan, 0, -1);
      await this.count(m, plan, 1, +1);
      for (const price of prices) Object.assign(price, { deletedAt: now, updatedAt: now });
      return toPlanResponse({ ...plan, deletedAt: now, updatedAt: now }, prices);
    });
  }

  /**
   * Moves the plan count of `plan`'s organization and product (live: 0, deleted: 1) by `delta`,
   * in the transaction that creates or deletes the plan, as its last statement (the row lock it
   * takes on PostgreSQL is held for the shortest time). A random slot: see PlanCount.
   */
  private async count(m: EntityManager, plan: Plan, deleted: 0 | 1, delta: number): Promise<void> {
    await this.db.execute(m, this.sql.countChange(deleted), [
      plan.organizationId,
      plan.productId,
      Math.floor(Math.random() * PLAN_COUNT_SLOTS),
      delta,
    ]);
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
      await this.db.execute(
        m,
        `UPDATE "prices" SET "plan_id" = NULL, "plan_position" = NULL, "updated_at" = ? ` +
          `WHERE "id" IN (${placeholders(dropped.length)}) AND "plan_id" = ?`,
        [this.sql.prices.param('updatedAt', now), ...dropped.map((p) => p.id), plan.id],
      );
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
    // Positions are integers of our own, written into the text: a create's are 0..n-1, so its
    // statement text is the same for every plan with as many prices.
    const positionCase = (ids: string[]) =>
      `CASE "id" ${ids.map((pid) => `WHEN ? THEN ${positions.get(pid)}`).join(' ')} END`;

    if (free.length > 0) {
      const ids = free.map((p) => p.id);
      const taken = await this.db.execute(
        m,
        `UPDATE "prices" SET "plan_id" = ?, "plan_position" = ${positionCase(ids)}, ` +
          `"updated_at" = ? WHERE "id" IN (${placeholders(ids.length)}) ` +
          `AND "organization_id" = ? AND "plan_id" IS NULL AND "deleted_at" IS NULL`,
        [planId, ...ids, this.sql.prices.param('updatedAt', now), ...ids, organizationId],
      );
      if (taken !== ids.length) {
        // Lost a race: say which prices were taken (or deleted) in the meantime.
        const latest = await this.loadPrices(m, organizationId, ids);
        assertPricesUsable(ids, latest, plan.productId, planId);
        throw new PriceInUseError('A listed price was taken by another plan; list another price');
      }
      for (const p of free) Object.assign(p, { planId, updatedAt: now });
    }
    if (reordered.size > 0) {
      const ids = [...reordered.keys()];
      await this.db.execute(
        m,
        `UPDATE "prices" SET "plan_position" = ${positionCase(ids)} ` +
          `WHERE "id" IN (${placeholders(ids.length)}) AND "plan_id" = ?`,
        [...ids, ...ids, planId],
      );
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
    const rows = await this.db.rows(m, this.sql.loadPrices(ids.length), [...ids, organizationId]);
    return new Map(
      rows.map((row) => {
        const price = this.sql.prices.fromRow(row);
        return [price.id, { ...price, metricProductId: row.metric_product_id as string }];
      }),
    );
  }

  private async pricesOf(m: EntityManager, planId: string): Promise<Price[]> {
    const rows = await this.db.rows(m, this.sql.pricesOfPlan, [planId]);
    return rows.map((r) => this.sql.prices.fromRow(r));
  }

  private async pricesOfPlans(m: EntityManager, plans: Plan[]): Promise<Price[]> {
    const rows = await this.db.rows(
      m,
      this.sql.pricesOfPlans(plans.length),
      plans.map((p) => p.id),
    );
    return rows.map((r) => this.sql.prices.fromRow(r));
  }

  private async find(
    m: EntityManager,
    organizationId: string,
    id: string,
    lock = false,
  ): Promise<Plan> {
    if (!isIdOf(ID_PREFIXES.plan, id)) throw new NotFoundError('plan', id);
    const [row] = await this.db.rows(m, lock ? this.sql.planForUpdate : this.sql.plan, [
      id,
      organizationId,
    ]);
    if (!row) throw new NotFoundError('plan', id);
    return this.sql.plans.fromRow(row);
  }
}

function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/** Memoizes the text of a statement that depends on a count (the ids in an IN list). */
function perCount(build: (n: number) => string): (n: number) => string {
  const texts = new Map<number, string>();
  return (n) => {
    let text = texts.get(n);
    if (text === undefined) texts.set(n, (text = build(n)));
    return text;
  };
}

/**
 * The SQL of plans' hot paths, as constant text (see EntityTable): the same statements TypeORM's
 * find options produced, without rebuilding them on every request.
 */
function planStatements(db: Database) {
  const plans = db.table(Plan);
  const prices = db.table(Price);
  const plan = `SELECT ${plans.columnList()} FROM "plans" WHERE "id" = ? AND "organization_id" = ? LIMIT 1`;
  const listFilters = new Map<string, { page: string; count: string }>();
  return {
    plans,
    prices,
    plan,
    planForUpdate: db.isPostgres ? `${plan} FOR UPDATE` : plan,
    /** Adds a delta to one slot of a count; parameters: organization, product, slot, delta. */
    countChange: (deleted: 0 | 1) =>
      'INSERT INTO "plan_counts" ("organization_id", "product_id", "deleted", "slot", "plans") ' +
      `VALUES (?, ?, ${deleted}, ?, ?) ` +
      'ON CONFLICT ("organization_id", "product_id", "deleted", "slot") ' +
      'DO UPDATE SET "plans" = "plan_counts"."plans" + excluded."plans"',
    productExists:
      'SELECT 1 AS "found" FROM "products" WHERE "id" = ? AND "organization_id" = ? LIMIT 1',
    pricesOfPlan: `SELECT ${prices.columnList()} FROM "prices" WHERE "plan_id" = ? ORDER BY "plan_position" ASC`,
    pricesOfPlans: perCount(
      (n) =>
        `SELECT ${prices.columnList()} FROM "prices" WHERE "plan_id" IN (${placeholders(n)}) ORDER BY "plan_position" ASC`,
    ),
    loadPrices: perCount(
      (n) =>
        `SELECT ${prices.columnList('p')}, "bm"."product_id" AS "metric_product_id" FROM "prices" "p" ` +
        `INNER JOIN "billable_metrics" "bm" ON "bm"."id" = "p"."billable_metric_id" ` +
        `WHERE "p"."id" IN (${placeholders(n)}) AND "p"."organization_id" = ?`,
    ),
    /** A page of plans and their total, newest first; parameters: organization, [product]. */
    listFilter(byProduct: boolean, liveOnly: boolean): { page: string; count: string } {
      const key = `${byProduct}:${liveOnly}`;
      let filter = listFilters.get(key);
      if (!filter) {
        const where =
          '"organization_id" = ?' +
          (byProduct ? ' AND "product_id" = ?' : '') +
          (liveOnly ? ' AND "deleted_at" IS NULL' : '');
        filter = {
          page: `SELECT ${plans.columnList()} FROM "plans" WHERE ${where} ORDER BY "created_at" DESC, "id" DESC LIMIT ? OFFSET ?`,
          // The total from the maintained counts (PlanCount): a few rows, not every plan.
          count:
            'SELECT COALESCE(SUM("plans"), 0) AS "total" FROM "plan_counts" WHERE "organization_id" = ?' +
            (byProduct ? ' AND "product_id" = ?' : '') +
            (liveOnly ? ' AND "deleted" = 0' : ''),
        };
        listFilters.set(key, filter);
      }
      return filter;
    },
  };
}
