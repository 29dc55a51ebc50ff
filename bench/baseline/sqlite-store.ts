import Sqlite from 'better-sqlite3';
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
  planView,
  priceProblem,
  priceView,
  tenantOf,
} from './store';

/** SQLite has no booleans: the mode is 1 (live) or 0 (test). */
function mode(tenant: Tenant): number {
  return tenant.livemode ? 1 : 0;
}

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

  /** The write's events, and the endpoints that would get them (none in the benchmark). */
  const recordEvents = (tenant: Tenant, events: [string, object, object | null][], now: Date) => {
    stmt(SQL.endpoints).all(tenant.organizationId, mode(tenant));
    const requestId = newRequestId();
    for (const [type, object, previous] of events) {
      stmt(SQL.insertEvent).run(
        ...eventRow(
          tenant,
          type,
          object,
          previous as Record<string, unknown> | null,
          requestId,
          datetime(now),
          mode(tenant),
        ),
      );
    }
  };

  const createPlan = db.transaction((tenant: Tenant, body: CreatePlanBody) => {
    const scope = [tenant.organizationId, mode(tenant)];
    if (!stmt(SQL.productExists).get(body.productId, ...scope)) return 'no such product';
    const ids = body.prices;
    const rows = ownPrices(stmt(SQL.loadPrices(ids.length)).all(...ids) as Row[], tenant);
    const problem = priceProblem(ids, rows, body.productId);
    if (problem) return problem;
    const now = new Date();
    const planRow = newPlanRow(newPlanId(), tenant, mode(tenant), body, datetime(now));
    stmt(SQL.insertPlan).run(...planRow);
    const taken = stmt(SQL.takePrices(ids.length)).run(planRow[0], ...ids, datetime(now), ...ids);
    if (taken.changes !== ids.length) throw new Error('a price was taken meanwhile');
    stmt(SQL.countPlan).run(...scope, body.productId, countSlot());
    const byId = new Map(rows.map((r) => [r.id, r]));
    const prices = ids.map((id, i) => ({
      ...byId.get(id),
      plan_id: planRow[0],
      plan_position: i,
      updated_at: datetime(now),
    }));
    const plan = planView(insertedPlan(planRow, now), prices);
    recordEvents(
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
  });

  const patchAccount = db.transaction(
    (tenant: Tenant, id: string, patch: Record<string, unknown>) => {
      const row = stmt(SQL.account).get(id, tenant.organizationId, mode(tenant)) as Row | undefined;
      if (!row) return null;
      const old = JSON.parse(row.metadata as string) as Record<string, unknown>;
      const metadata = mergeMetadata(old, patch);
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
      const account = accountView({ ...row, updated_at: now }, metadata);
      recordEvents(tenant, [['externalBankAccount.updated', account, { metadata: old }]], now);
      return account;
    },
  );

  return {
    authenticate(keyHash) {
      const row = stmt(SQL.auth).get(keyHash) as Row | undefined;
      return Promise.resolve(row ? tenantOf(row) : null);
    },
    getPlan(tenant, id) {
      const plan = stmt(SQL.plan).get(id, tenant.organizationId, mode(tenant)) as Row | undefined;
      if (!plan) return Promise.resolve(null);
      return Promise.resolve(planView(plan, stmt(SQL.pricesOfPlan).all(id) as Row[]));
    },
    listPlans(tenant, limit, offset) {
      const scope = [tenant.organizationId, mode(tenant)];
      const plans = stmt(SQL.planPage).all(...scope, limit, offset) as Row[];
      const { cnt } = stmt(SQL.planCount).get(...scope) as { cnt: number };
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
    patchAccountMetadata(tenant, id, patch) {
      return Promise.resolve(patchAccount(tenant, id, patch));
    },
    createPlan(tenant, body) {
      return Promise.resolve(createPlan(tenant, body));
    },
    close() {
      db.close();
      return Promise.resolve();
    },
  };
}
