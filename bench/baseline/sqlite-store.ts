import Sqlite from 'better-sqlite3';
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
  planView,
  priceProblem,
} from './store';

/** TypeORM's `datetime` text on SQLite. */
function datetime(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * better-sqlite3 on the file, with the service's pragmas. The driver is synchronous and every
 * request's work runs in one go, so no lock is needed: nothing interleaves on the connection.
 * Statements are prepared once.
 */
export function sqliteStore(path: string): Store {
  const db = new Sqlite(path, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');

  const cache = new Map<string, Sqlite.Statement>();
  const stmt = (sql: string) => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = db.prepare(sql)));
    return s;
  };

  const createPlan = db.transaction((organizationId: string, body: CreatePlanBody) => {
    if (!stmt(SQL.productExists).get(body.productId, organizationId)) return 'no such product';
    const ids = body.prices;
    const rows = stmt(SQL.loadPrices(ids.length)).all(...ids, organizationId) as Row[];
    const problem = priceProblem(ids, rows, body.productId);
    if (problem) return problem;
    const now = new Date();
    const planRow = newPlanRow(newPlanId(), organizationId, body, datetime(now));
    stmt(SQL.insertPlan).run(...planRow);
    const taken = stmt(SQL.takePrices(ids.length)).run(
      planRow[0],
      ...ids,
      datetime(now),
      ...ids,
      organizationId,
    );
    if (taken.changes !== ids.length) throw new Error('a price was taken meanwhile');
    stmt(SQL.countPlan).run(organizationId, body.productId, countSlot());
    const byId = new Map(rows.map((r) => [r.id, r]));
    const prices = ids.map((id, i) => ({
      ...byId.get(id),
      plan_id: planRow[0],
      plan_position: i,
      updated_at: datetime(now),
    }));
    return planView(insertedPlan(planRow, now), prices);
  });

  const patchAccount = db.transaction(
    (organizationId: string, id: string, patch: Record<string, unknown>) => {
      const row = stmt(SQL.account).get(id, organizationId) as Row | undefined;
      if (!row) return null;
      const metadata = mergeMetadata(JSON.parse(row.metadata as string), patch);
      const now = new Date();
      stmt(SQL.updateAccount).run(
        row.account_holder_name,
        row.account_holder_type,
        row.status,
        row.status_reason,
        JSON.stringify(metadata),
        datetime(now),
        id,
      );
      return accountView({ ...row, updated_at: now }, metadata);
    },
  );

  return {
    authenticate(keyHash) {
      const row = stmt(SQL.auth).get(keyHash) as Row | undefined;
      return Promise.resolve(row ? (row.organization_id as string) : null);
    },
    getPlan(organizationId, id) {
      const plan = stmt(SQL.plan).get(id, organizationId) as Row | undefined;
      if (!plan) return Promise.resolve(null);
      return Promise.resolve(planView(plan, stmt(SQL.pricesOfPlan).all(id) as Row[]));
    },
    listPlans(organizationId, limit, offset) {
      const plans = stmt(SQL.planPage).all(organizationId, limit, offset) as Row[];
      const { cnt } = stmt(SQL.planCount).get(organizationId) as { cnt: number };
      const prices =
        plans.length === 0
          ? []
          : (stmt(SQL.pricesOfPlans(plans.length)).all(...plans.map((p) => p.id)) as Row[]);
      const byPlan = new Map<unknown, Row[]>(plans.map((p) => [p.id, []]));
      for (const price of prices) byPlan.get(price.plan_id)?.push(price);
      return Promise.resolve({
        data: plans.map((p) => planView(p, byPlan.get(p.id)!)),
        pagination: { limit, offset, total: cnt },
      });
    },
    patchAccountMetadata(organizationId, id, patch) {
      return Promise.resolve(patchAccount(organizationId, id, patch));
    },
    createPlan(organizationId, body) {
      return Promise.resolve(createPlan(organizationId, body));
    },
    close() {
      db.close();
      return Promise.resolve();
    },
  };
}
