import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Tenant } from '../common/tenant';
import { Database } from '../database/database';
import { PLAN_COUNT_SLOTS } from './entities/plan-count.entity';
import { Plan } from './entities/plan.entity';

export interface PlanFilter {
  productId?: string;
  includeDeleted?: boolean;
}

/**
 * The queries of plans and their counts, on the entity manager of the caller's unit of work.
 * Plans' hot paths (read, insert, list) are constant SQL through the EntityTable mechanism: the
 * statements TypeORM's find options produced, built once instead of on every request
 * (docs/benchmarks.md); updates go through TypeORM.
 */
@Injectable()
export class PlansRepository {
  private built?: ReturnType<typeof planStatements>;

  constructor(private readonly db: Database) {}

  private get sql(): ReturnType<typeof planStatements> {
    return (this.built ??= planStatements(this.db));
  }

  /** The tenant's plan (deleted ones too), locked on PostgreSQL when `lock` is set. */
  async find(m: EntityManager, tenant: Tenant, id: string, lock = false): Promise<Plan | null> {
    const [row] = await this.db.rows(m, lock ? this.sql.planForUpdate : this.sql.plan, [
      id,
      tenant.organizationId,
      tenant.livemode,
    ]);
    return row ? this.sql.plans.fromRow(row) : null;
  }

  async insert(m: EntityManager, plan: Plan): Promise<void> {
    await this.db.execute(m, this.sql.plans.insertSql, this.sql.plans.values(plan));
  }

  async update(m: EntityManager, id: string, changes: Partial<Plan>): Promise<void> {
    await m.update(Plan, { id }, changes);
  }

  /** Adds `delta` to the plan's count of active and pending subscriptions. */
  async addSubscriptions(m: EntityManager, id: string, delta: number): Promise<void> {
    await m.increment(Plan, { id }, 'subscriptionCount', delta);
  }

  /** A page of the tenant's plans, newest first, and their total. */
  async page(
    m: EntityManager,
    tenant: Tenant,
    filter: PlanFilter,
    page: { limit: number; offset: number },
  ): Promise<[Plan[], number]> {
    const statements = this.sql.listFilter(!!filter.productId, !filter.includeDeleted);
    const params: unknown[] = [tenant.organizationId, tenant.livemode];
    if (filter.productId) params.push(filter.productId);
    const rows = await this.db.rows(m, statements.page, [...params, page.limit, page.offset]);
    const [{ total }] = await this.db.rows<{ total: number | string }>(m, statements.count, params);
    return [rows.map((r) => this.sql.plans.fromRow(r)), Number(total)];
  }

  /**
   * Moves the plan count of `plan`'s organization, mode and product (live: 0, deleted: 1) by `delta`,
   * in the transaction that creates or deletes the plan, as its last statement (`db.atLast`:
   * after the events and the idempotent answer, so the slot's row lock, which every create of
   * the product may want on PostgreSQL, is held the shortest time). A random slot: see PlanCount.
   */
  async count(m: EntityManager, plan: Plan, deleted: 0 | 1, delta: number): Promise<void> {
    const write = async () => {
      await this.db.execute(m, this.sql.countChange(deleted), [
        plan.organizationId,
        plan.livemode,
        plan.productId,
        Math.floor(Math.random() * PLAN_COUNT_SLOTS),
        delta,
      ]);
    };
    if (!this.db.atLast(m, write)) await write();
  }
}

function planStatements(db: Database) {
  const plans = db.table(Plan);
  const plan = `SELECT ${plans.columnList()} FROM "plans" WHERE "id" = ? AND "organization_id" = ? AND "livemode" = ? LIMIT 1`;
  const listFilters = new Map<string, { page: string; count: string }>();
  return {
    plans,
    plan,
    planForUpdate: db.isPostgres ? `${plan} FOR UPDATE` : plan,
    /** Adds a delta to one slot of a count; parameters: organization, mode, product, slot, delta. */
    countChange: (deleted: 0 | 1) =>
      'INSERT INTO "plan_counts" ("organization_id", "livemode", "product_id", "deleted", "slot", "plans") ' +
      `VALUES (?, ?, ?, ${deleted}, ?, ?) ` +
      'ON CONFLICT ("organization_id", "livemode", "product_id", "deleted", "slot") ' +
      'DO UPDATE SET "plans" = "plan_counts"."plans" + excluded."plans"',
    /** A page of plans and their total, newest first; parameters: organization, mode, [product]. */
    listFilter(byProduct: boolean, liveOnly: boolean): { page: string; count: string } {
      const key = `${byProduct}:${liveOnly}`;
      let filter = listFilters.get(key);
      if (!filter) {
        const where =
          '"organization_id" = ? AND "livemode" = ?' +
          (byProduct ? ' AND "product_id" = ?' : '') +
          (liveOnly ? ' AND "deleted_at" IS NULL' : '');
        filter = {
          page: `SELECT ${plans.columnList()} FROM "plans" WHERE ${where} ORDER BY "created_at" DESC, "id" DESC LIMIT ? OFFSET ?`,
          // The total from the maintained counts (PlanCount): a few rows, not every plan.
          count:
            'SELECT COALESCE(SUM("plans"), 0) AS "total" FROM "plan_counts" WHERE "organization_id" = ? AND "livemode" = ?' +
            (byProduct ? ' AND "product_id" = ?' : '') +
            (liveOnly ? ' AND "deleted" = 0' : ''),
        };
        listFilters.set(key, filter);
      }
      return filter;
    },
  };
}
