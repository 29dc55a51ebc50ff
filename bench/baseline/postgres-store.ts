import { Pool, PoolClient } from 'pg';
import {
  CreatePlanBody,
  Row,
  SQL,
  Store,
  Tenant,
  accountView,
  countSlot,
  eventRow,
  insertedPlan,
  mergeMetadata,
  newPlanId,
  newPlanRow,
  newRequestId,
  ownPrices,
  numbered,
  planView,
  priceProblem,
  priceView,
  tenantOf,
} from './store';

/**
 * pg's Pool with the service's size (DATABASE_POOL_SIZE, default 10) and parameterized queries,
 * as TypeORM sends them. Reads take one pooled client per request, in one read-only snapshot as
 * the service's; writes run in one transaction with the row locks the service takes (FOR UPDATE).
 */
/** How a read of several statements begins: one snapshot, as the service's `db.snapshot`. */
const SNAPSHOT = 'START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY';

export function postgresStore(url: string): Store {
  const pool = new Pool({
    connectionString: url,
    max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
  });
  const text = new Map<string, string>();
  const q = async (client: PoolClient | Pool, sql: string, params: unknown[]) => {
    let numberedSql = text.get(sql);
    if (!numberedSql) text.set(sql, (numberedSql = numbered(sql)));
    return (await client.query(numberedSql, params)).rows as Row[];
  };

  /**
   * `work` in one transaction; begun with SNAPSHOT, a read of several statements in one snapshot,
   * as the service runs the reads of a plan (the plan, its prices) and of a page (the page, its
   * total, the prices).
   */
  async function inTransaction<T>(
    work: (client: PoolClient) => Promise<T>,
    begin = 'BEGIN',
  ): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query(begin);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    } finally {
      client.release();
    }
  }

  /** The write's events, and the endpoints that would get them (none in the benchmark). */
  async function recordEvents(
    c: PoolClient,
    tenant: Tenant,
    events: [string, object, object | null][],
    now: Date,
  ): Promise<void> {
    await q(c, SQL.endpoints, [tenant.organizationId, tenant.livemode]);
    const requestId = newRequestId();
    for (const [type, object, previous] of events) {
      await q(
        c,
        SQL.insertEvent,
        eventRow(
          tenant,
          type,
          object,
          previous as Record<string, unknown> | null,
          requestId,
          now,
          tenant.livemode,
        ),
      );
    }
  }

  return {
    async authenticate(keyHash) {
      const [row] = await q(pool, SQL.auth, [keyHash]);
      return row ? tenantOf(row) : null;
    },
    getPlan: (tenant, id) =>
      inTransaction(async (c) => {
        const [plan] = await q(c, SQL.plan, [id, tenant.organizationId, tenant.livemode]);
        if (!plan) return null;
        return planView(plan, await q(c, SQL.pricesOfPlan, [id]));
      }, SNAPSHOT),
    listPlans: (tenant, limit, offset) =>
      inTransaction(async (c) => {
        const scope = [tenant.organizationId, tenant.livemode];
        const plans = await q(c, SQL.planPage, [...scope, limit, offset]);
        const [{ cnt }] = await q(c, SQL.planCount, scope);
        const prices =
          plans.length === 0
            ? []
            : await q(
                c,
                SQL.pricesOfPlans(plans.length),
                plans.map((p) => p.id),
              );
        const byPlan = new Map<unknown, Row[]>(plans.map((p) => [p.id, []]));
        for (const price of prices) byPlan.get(price.plan_id)?.push(price);
        return {
          data: plans.map((p) => planView(p, byPlan.get(p.id)!)),
          pagination: { limit, offset, total: Number(cnt) },
        };
      }, SNAPSHOT),
    patchAccountMetadata: (tenant, id, patch) =>
      inTransaction(async (c) => {
        const [row] = await q(c, `${SQL.account} FOR UPDATE`, [
          id,
          tenant.organizationId,
          tenant.livemode,
        ]);
        if (!row) return null;
        const old = row.metadata as Record<string, unknown>;
        const metadata = mergeMetadata(old, patch);
        const now = new Date();
        await q(c, SQL.updateAccount, [
          row.account_holder_name,
          row.account_holder_type,
          row.status,
          row.status_reason,
          JSON.stringify(metadata),
          now.toISOString(),
          id,
        ]);
        const account = accountView({ ...row, updated_at: now }, metadata);
        await recordEvents(
          c,
          tenant,
          [['externalBankAccount.updated', account, { metadata: old }]],
          now,
        );
        return account;
      }),
    createPlan: (tenant, body: CreatePlanBody) =>
      inTransaction(async (c) => {
        const scope = [tenant.organizationId, tenant.livemode];
        const exists = await q(c, SQL.productExists, [body.productId, ...scope]);
        if (exists.length === 0) return 'no such product';
        const ids = body.prices;
        // Locked, as the service locks the prices a plan write shows.
        const rows = ownPrices(
          await q(c, `${SQL.loadPrices(ids.length)} ORDER BY p.id FOR UPDATE OF p`, ids),
          tenant,
        );
        const problem = priceProblem(ids, rows, body.productId);
        if (problem) return problem;
        const now = new Date();
        const planRow = newPlanRow(newPlanId(), tenant, tenant.livemode, body, now);
        await q(c, SQL.insertPlan, planRow);
        const taken = await c.query(numbered(SQL.takePrices(ids.length)), [
          planRow[0],
          ...ids,
          now,
          ...ids,
        ]);
        if (taken.rowCount !== ids.length) throw new Error('a price was taken meanwhile');
        await q(c, SQL.countPlan, [...scope, body.productId, countSlot()]);
        const byId = new Map(rows.map((r) => [r.id, r]));
        const prices = ids.map((id, i) => ({
          ...byId.get(id),
          plan_id: planRow[0],
          plan_position: i,
          updated_at: now,
        }));
        const plan = planView(insertedPlan(planRow, now), prices);
        await recordEvents(
          c,
          tenant,
          [
            ['plan.created', plan, null],
            ...prices.map((p): [string, object, object] => [
              'price.updated',
              priceView(p),
              { planId: null },
            ]),
          ],
          now,
        );
        return plan;
      }),
    close: () => pool.end(),
  };
}
