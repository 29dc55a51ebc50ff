import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, IsNull } from 'typeorm';
import { Tenant, ownedBy } from '../common/tenant';
import { Database } from '../database/database';
import { EntityTable } from '../database/entity-table';
import { Price } from './entities/price.entity';

export interface PriceFilter {
  billableMetricId?: string;
  planId?: string;
  includeDeleted?: boolean;
}

/**
 * The queries of prices, on the entity manager of the caller's unit of work. The statements
 * plans run on every write (take, free, reorder, read a plan's prices) are constant SQL through
 * the EntityTable mechanism, built once; the rest is TypeORM.
 */
@Injectable()
export class PricesRepository {
  private readonly perCount = new Map<string, string>();
  private entityTable?: EntityTable<Price>;

  constructor(private readonly db: Database) {}

  /** The table, for its column list and parameter conversion (built after start-up). */
  private get table(): EntityTable<Price> {
    return (this.entityTable ??= this.db.table(Price));
  }

  async insert(m: EntityManager, price: Price): Promise<void> {
    await m.insert(Price, price);
  }

  /** The tenant's price (deleted ones too), locked on PostgreSQL when `lock` is set. */
  find(m: EntityManager, tenant: Tenant, id: string, lock = false): Promise<Price | null> {
    return m.findOne(Price, {
      where: { id, ...ownedBy(tenant) },
      lock: lock ? this.db.rowLock : undefined,
    });
  }

  page(
    m: EntityManager,
    tenant: Tenant,
    filter: PriceFilter,
    page: { limit: number; offset: number },
  ): Promise<[Price[], number]> {
    const where: FindOptionsWhere<Price> = ownedBy(tenant);
    if (filter.billableMetricId) where.billableMetricId = filter.billableMetricId;
    if (filter.planId) where.planId = filter.planId;
    if (!filter.includeDeleted) where.deletedAt = IsNull();
    return m.findAndCount(Price, {
      where,
      order: { createdAt: 'DESC', id: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
  }

  async update(m: EntityManager, id: string, changes: Partial<Price>): Promise<void> {
    await m.update(Price, { id }, changes);
  }

  /** Soft-deletes the prices still live in a plan being deleted. */
  async deleteOfPlan(m: EntityManager, planId: string, now: Date): Promise<void> {
    await m.update(Price, { planId, deletedAt: IsNull() }, { deletedAt: now, updatedAt: now });
  }

  /** The prices of a plan, in plan order. */
  async ofPlan(m: EntityManager, planId: string): Promise<Price[]> {
    const text = this.statement(
      'ofPlan',
      0,
      () =>
        `SELECT ${this.table.columnList()} FROM "prices" WHERE "plan_id" = ? ORDER BY "plan_position" ASC`,
    );
    return this.fromRows(await this.db.rows(m, text, [planId]));
  }

  /**
   * The prices of a plan, in plan order, for a write of the plan: on PostgreSQL they are locked,
   * with the prices `listed` (those the write will take), in one statement and in the order of
   * their ids, as every plan write locks prices, so that two plan writes that want each other's
   * prices queue instead of deadlocking. A plan write builds its answer and its events from these
   * rows, so a concurrent price PATCH must land before it reads them or wait for it. The caller
   * holds the plan's row lock, so no other write adds a price to the plan meanwhile.
   */
  async ofPlanForWrite(m: EntityManager, planId: string, listed: string[] = []): Promise<Price[]> {
    if (!this.db.isPostgres) return this.ofPlan(m, planId);
    const text = this.statement(
      'ofPlanForWrite',
      listed.length,
      (n) =>
        `SELECT ${this.table.columnList()} FROM "prices" WHERE "plan_id" = ?` +
        (n > 0 ? ` OR "id" IN (${placeholders(n)})` : '') +
        ' ORDER BY "id" FOR UPDATE',
    );
    return this.fromRows(await this.db.rows(m, text, [planId, ...listed]))
      .filter((p) => p.planId === planId)
      .sort((a, b) => (a.planPosition ?? 0) - (b.planPosition ?? 0));
  }

  /** The prices of several plans, each plan's in plan order. */
  async ofPlans(m: EntityManager, planIds: string[]): Promise<Price[]> {
    const text = this.statement(
      'ofPlans',
      planIds.length,
      (n) =>
        `SELECT ${this.table.columnList()} FROM "prices" WHERE "plan_id" IN (${placeholders(n)}) ORDER BY "plan_position" ASC`,
    );
    return this.fromRows(await this.db.rows(m, text, planIds));
  }

  /**
   * The tenant's prices among `ids` (deleted ones too), in no particular order. Searched by id
   * alone and scoped here: with the organization and mode in the WHERE clause, SQLite without
   * statistics searches the organization's index and reads every price it has. Locked on
   * PostgreSQL when `lock` is set, in the order of their ids (so two plans taking overlapping
   * prices queue rather than deadlock): a plan write builds its answer and its events from these
   * rows, which must be the latest.
   */
  async findMany(m: EntityManager, tenant: Tenant, ids: string[], lock = false): Promise<Price[]> {
    const text = this.statement(
      lock ? 'findManyForUpdate' : 'findMany',
      ids.length,
      (n) =>
        `SELECT ${this.table.columnList()} FROM "prices" WHERE "id" IN (${placeholders(n)})` +
        // The row locks of a read-modify-write: PostgreSQL only (SQLite serializes writes).
        (lock && this.db.isPostgres ? ' ORDER BY "id" FOR UPDATE' : ''),
    );
    return this.fromRows(await this.db.rows(m, text, ids)).filter(
      (p) => p.organizationId === tenant.organizationId && p.livemode === tenant.livemode,
    );
  }

  /**
   * Takes free, undeleted prices into a plan at the given positions, in one conditional UPDATE;
   * returns how many it took (fewer than `ids`: another plan or a delete got there first).
   * `ids` are prices the caller loaded with `findMany` in this transaction, so they are the
   * plan's organization's and mode's: the WHERE clause names only the id and the conditions
   * that can change under it, so that SQLite searches by id (with the organization and mode in
   * it, SQLite without statistics searched the organization's free prices, every one of them).
   * Positions are integers of our own, written into the text, so a create's statement
   * (positions 0..n-1) is the same for every plan with as many prices.
   */
  take(
    m: EntityManager,
    planId: string,
    ids: string[],
    positions: Map<string, number>,
    now: Date,
  ): Promise<number> {
    return this.db.execute(
      m,
      `UPDATE "prices" SET "plan_id" = ?, "plan_position" = ${positionCase(ids, positions)}, ` +
        `"updated_at" = ? WHERE "id" IN (${placeholders(ids.length)}) ` +
        `AND "plan_id" IS NULL AND "deleted_at" IS NULL`,
      [planId, ...ids, this.table.param('updatedAt', now), ...ids],
    );
  }

  /** Moves prices already in the plan to new positions. */
  async reorder(
    m: EntityManager,
    planId: string,
    ids: string[],
    positions: Map<string, number>,
  ): Promise<void> {
    await this.db.execute(
      m,
      `UPDATE "prices" SET "plan_position" = ${positionCase(ids, positions)} ` +
        `WHERE "id" IN (${placeholders(ids.length)}) AND "plan_id" = ?`,
      [...ids, ...ids, planId],
    );
  }

  /** Frees prices of the plan: they go back to no plan. */
  async free(m: EntityManager, planId: string, ids: string[], now: Date): Promise<void> {
    await this.db.execute(
      m,
      `UPDATE "prices" SET "plan_id" = NULL, "plan_position" = NULL, "updated_at" = ? ` +
        `WHERE "id" IN (${placeholders(ids.length)}) AND "plan_id" = ?`,
      [this.table.param('updatedAt', now), ...ids, planId],
    );
  }

  private fromRows(rows: Record<string, unknown>[]): Price[] {
    return rows.map((row) => this.table.fromRow(row));
  }

  /** Memoizes the text of a statement that depends on a count (the ids in an IN list). */
  private statement(name: string, count: number, build: (n: number) => string): string {
    const key = `${name}:${count}`;
    let text = this.perCount.get(key);
    if (text === undefined) this.perCount.set(key, (text = build(count)));
    return text;
  }
}

function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

function positionCase(ids: string[], positions: Map<string, number>): string {
  return `CASE "id" ${ids.map((id) => `WHEN ? THEN ${positions.get(id)}`).join(' ')} END`;
}
