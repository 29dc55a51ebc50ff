import { Pool, PoolClient } from 'pg';
import { countSlot, newPlanId } from './store';
import {
  CreatePlanBody,
  Row,
  SQL,
  Store,
  accountView,
  insertedPlan,
  mergeMetadata,
  newPlanRow,
  numbered,
  planView,
  priceProblem,
} from './store';

/**
 * pg's Pool with the service's size (DATABASE_POOL_SIZE, default 10) and parameterized queries,
 * as TypeORM sends them. Reads take one pooled client per request; writes run in one
 * transaction with the row lock the service takes (FOR UPDATE).
 */
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

  async function inTransaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
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

  async function withClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      return await work(client);
    } finally {
      client.release();
    }
  }

  return {
    async authenticate(keyHash) {
      const [row] = await q(pool, SQL.auth, [keyHash]);
      return row ? (row.organization_id as string) : null;
    },
    getPlan: (organizationId, id) =>
      withClient(async (c) => {
        const [plan] = await q(c, SQL.plan, [id, organizationId]);
        if (!plan) return null;
        return planView(plan, await q(c, SQL.pricesOfPlan, [id]));
      }),
    listPlans: (organizationId, limit, offset) =>
      withClient(async (c) => {
        const plans = await q(c, SQL.planPage, [organizationId, limit, offset]);
        const [{ cnt }] = await q(c, SQL.planCount, [organizationId]);
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
      }),
    patchAccountMetadata: (organizationId, id, patch) =>
      inTransaction(async (c) => {
        const [row] = await q(c, `${SQL.account} FOR UPDATE`, [id, organizationId]);
        if (!row) return null;
        const metadata = mergeMetadata(row.metadata as Record<string, unknown>, patch);
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
        return accountView({ ...row, updated_at: now }, metadata);
      }),
    createPlan: (organizationId, body: CreatePlanBody) =>
      inTransaction(async (c) => {
        const exists = await q(c, SQL.productExists, [body.productId, organizationId]);
        if (exists.length === 0) return 'no such product';
        const ids = body.prices;
        const rows = await q(c, SQL.loadPrices(ids.length), [...ids, organizationId]);
        const problem = priceProblem(ids, rows, body.productId);
        if (problem) return problem;
        const now = new Date();
        const planRow = newPlanRow(newPlanId(), organizationId, body, now);
        await q(c, SQL.insertPlan, planRow);
        const taken = await c.query(numbered(SQL.takePrices(ids.length)), [
          planRow[0],
          ...ids,
          now,
          ...ids,
          organizationId,
        ]);
        if (taken.rowCount !== ids.length) throw new Error('a price was taken meanwhile');
        await q(c, SQL.countPlan, [organizationId, body.productId, countSlot()]);
        const byId = new Map(rows.map((r) => [r.id, r]));
        const prices = ids.map((id, i) => ({
          ...byId.get(id),
          plan_id: planRow[0],
          plan_position: i,
          updated_at: now,
        }));
        return planView(insertedPlan(planRow, now), prices);
      }),
    close: () => pool.end(),
  };
}
