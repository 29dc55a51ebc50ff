import { monotonicFactory } from 'ulid';

/**
 * The database work of each benchmark scenario, written straight on the driver: the statements
 * the service sends (see bench/trace-sql.ts), the rows mapped to the same JSON. What a baseline
 * server does per request, with no framework, no ORM, no validation library.
 */

/** A price or plan row as both drivers return it (timestamps as text on SQLite, Date on pg). */
export type Row = Record<string, unknown>;

/** Whose data a request reads and writes: an organization in one mode (docs/api.md §2). */
export interface Tenant {
  organizationId: string;
  livemode: boolean;
  /** The API key's id: the actor of the events the writes record. */
  apiKeyId: string;
}

export interface Store {
  /** The organization and mode of a key with this SHA-256 that is not revoked, or null. */
  authenticate(keyHash: string): Promise<Tenant | null>;
  getPlan(tenant: Tenant, id: string): Promise<object | null>;
  listPlans(tenant: Tenant, limit: number, offset: number): Promise<object>;
  /** Merges `patch` into the account's metadata; null when there is no such account. */
  patchAccountMetadata(
    tenant: Tenant,
    id: string,
    patch: Record<string, string | number | boolean | null>,
  ): Promise<object | null>;
  /** Creates a plan taking the listed free prices; a string says why it was refused. */
  createPlan(tenant: Tenant, body: CreatePlanBody): Promise<object | string>;
  close(): Promise<void>;
}

export interface CreatePlanBody {
  name: string;
  invoiceDisplayName?: string;
  description?: string | null;
  productId: string;
  billingInterval: string;
  currency?: string;
  tax?: { behavior?: string; code?: string | null; rate?: string };
  prices: string[];
}

const ulid = monotonicFactory();

/** The slot of plan_counts a create adds to, as the service picks it. */
export function countSlot(): number {
  return Math.floor(Math.random() * 16);
}

/** A plan id as the service makes them: `plan_` and a ULID. */
export function newPlanId(): string {
  return `plan_${ulid()}`;
}

/** A request id as the service makes them (the events of a write carry it). */
export function newRequestId(): string {
  return `req_${ulid()}`;
}

/** An event id as the service makes them. */
export function newEventId(): string {
  return `evt_${ulid()}`;
}

/**
 * The events a write records in its transaction (docs/events.md), as rows of EVENT_COLUMNS:
 * the resource's view after the change, and for updates the old values of what changed.
 */
export function eventRow(
  tenant: Tenant,
  type: string,
  object: object,
  previousAttributes: Record<string, unknown> | null,
  requestId: string,
  now: unknown,
  livemode: unknown,
): unknown[] {
  return [
    newEventId(),
    tenant.organizationId,
    livemode,
    type,
    type.slice(0, type.indexOf('.')),
    JSON.stringify({ object, previousAttributes }),
    requestId,
    null,
    'apiKey',
    tenant.apiKeyId,
    now,
  ];
}

export const AUTH_SQL =
  'SELECT id, organization_id, mode FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL LIMIT 1';

/** The tenant of an api_keys row. */
export function tenantOf(row: Row): Tenant {
  return {
    organizationId: row.organization_id as string,
    livemode: row.mode !== 'test',
    apiKeyId: row.id as string,
  };
}

const EVENT_COLUMNS =
  'id, organization_id, livemode, type, resource, data, request_id, idempotency_key, actor_type, actor_id, created_at';

const PLAN_COLUMNS =
  'id, organization_id, livemode, product_id, name, invoice_display_name, description, billing_interval, currency, tax_behavior, tax_code, tax_rate, created_at, updated_at, deleted_at';
const PRICE_COLUMNS =
  'id, organization_id, livemode, billable_metric_id, plan_id, plan_position, model, invoice_display_name, properties, created_at, updated_at, deleted_at';
const ACCOUNT_COLUMNS =
  'id, organization_id, livemode, country_code, bank_name, currency, account_number_encrypted, last4, fingerprint, routing_number, account_holder_name, account_holder_type, status, status_reason, metadata, created_at, updated_at, deleted_at';

export const SQL = {
  auth: AUTH_SQL,
  plan: `SELECT ${PLAN_COLUMNS} FROM plans WHERE id = ? AND organization_id = ? AND livemode = ? LIMIT 1`,
  pricesOfPlan: `SELECT ${PRICE_COLUMNS} FROM prices WHERE plan_id = ? ORDER BY plan_position ASC`,
  planPage: `SELECT ${PLAN_COLUMNS} FROM plans WHERE organization_id = ? AND livemode = ? AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  planCount:
    'SELECT COALESCE(SUM(plans), 0) AS cnt FROM plan_counts WHERE organization_id = ? AND livemode = ? AND deleted = 0',
  countPlan:
    'INSERT INTO plan_counts (organization_id, livemode, product_id, deleted, slot, plans) VALUES (?, ?, ?, 0, ?, 1) ON CONFLICT (organization_id, livemode, product_id, deleted, slot) DO UPDATE SET plans = plan_counts.plans + excluded.plans',
  pricesOfPlans: (n: number) =>
    `SELECT ${PRICE_COLUMNS} FROM prices WHERE plan_id IN (${placeholders(n)}) ORDER BY plan_position ASC`,
  account: `SELECT ${ACCOUNT_COLUMNS} FROM external_bank_accounts WHERE id = ? AND organization_id = ? AND livemode = ? AND deleted_at IS NULL LIMIT 1`,
  updateAccount:
    'UPDATE external_bank_accounts SET account_holder_name = ?, account_holder_type = ?, status = ?, status_reason = ?, metadata = ?, updated_at = ? WHERE id = ?',
  productExists:
    'SELECT 1 FROM products WHERE id = ? AND organization_id = ? AND livemode = ? LIMIT 1',
  loadPrices: (n: number) =>
    `SELECT ${PRICE_COLUMNS.split(', ')
      .map((c) => `p.${c}`)
      .join(
        ', ',
      )}, bm.product_id AS metric_product_id FROM prices p INNER JOIN billable_metrics bm ON bm.id = p.billable_metric_id WHERE p.id IN (${placeholders(n)})`,
  insertPlan: `INSERT INTO plans (${PLAN_COLUMNS}) VALUES (${placeholders(15)})`,
  takePrices: (n: number) =>
    `UPDATE prices SET plan_id = ?, plan_position = CASE id ${Array.from({ length: n }, (_, i) => `WHEN ? THEN ${i}`).join(' ')} END, updated_at = ? WHERE id IN (${placeholders(n)}) AND plan_id IS NULL AND deleted_at IS NULL`,
  /** Who may receive a write's events (asked once per write, as the deliveries are queued). */
  endpoints:
    'SELECT id, enabled_events, status FROM webhook_endpoints WHERE organization_id = ? AND livemode = ? AND deleted_at IS NULL',
  insertEvent: `INSERT INTO events (${EVENT_COLUMNS}) VALUES (${placeholders(11)})`,
};

export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/** `?` to `$1, $2...` for pg. */
export function numbered(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

function iso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  // SQLite keeps TypeORM's UTC text: `YYYY-MM-DD HH:mm:ss.SSS`.
  return `${(value as string).replace(' ', 'T')}Z`;
}

function json(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

export function priceView(p: Row): object {
  return {
    id: p.id,
    object: 'price',
    livemode: Boolean(p.livemode),
    billableMetricId: p.billable_metric_id,
    model: p.model,
    invoiceDisplayName: p.invoice_display_name,
    properties: json(p.properties),
    planId: p.plan_id,
    createdAt: iso(p.created_at),
    updatedAt: iso(p.updated_at),
    deletedAt: iso(p.deleted_at),
  };
}

export function planView(p: Row, prices: Row[]): object {
  return {
    id: p.id,
    object: 'plan',
    livemode: Boolean(p.livemode),
    name: p.name,
    invoiceDisplayName: p.invoice_display_name,
    description: p.description,
    billingInterval: p.billing_interval,
    currency: p.currency,
    merchantId: p.organization_id,
    productId: p.product_id,
    tax: { behavior: p.tax_behavior, code: p.tax_code, rate: p.tax_rate },
    prices: prices.map(priceView),
    createdAt: iso(p.created_at),
    updatedAt: iso(p.updated_at),
    deletedAt: iso(p.deleted_at),
  };
}

export function accountView(a: Row, metadata: Record<string, unknown>): object {
  return {
    id: a.id,
    object: 'externalBankAccount',
    livemode: Boolean(a.livemode),
    organizationId: a.organization_id,
    countryCode: a.country_code,
    bankName: a.bank_name,
    currency: a.currency,
    accountNumber: `****${String(a.last4)}`,
    routingNumber: a.routing_number,
    accountHolderName: a.account_holder_name,
    accountHolderType: a.account_holder_type,
    last4: a.last4,
    status: a.status,
    statusReason: a.status_reason,
    metadata,
    createdAt: iso(a.created_at),
    updatedAt: iso(a.updated_at),
  };
}

/** JSON Merge Patch of flat metadata, keys sorted as the service returns them. */
export function mergeMetadata(
  current: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((k) => [k, merged[k]]),
  );
}

/** The plan row a create inserts, in PLAN_COLUMNS order. */
export function newPlanRow(
  id: string,
  tenant: Tenant,
  livemode: unknown,
  body: CreatePlanBody,
  now: unknown,
): unknown[] {
  return [
    id,
    tenant.organizationId,
    livemode,
    body.productId,
    body.name,
    body.invoiceDisplayName ?? body.name,
    body.description ?? null,
    body.billingInterval,
    body.currency ?? 'USD',
    body.tax?.behavior ?? 'exclusive',
    body.tax?.code ?? null,
    body.tax?.rate ?? '0',
    now,
    now,
    null,
  ];
}

/** The inserted plan as a row (PLAN_COLUMNS order), for planView. */
export function insertedPlan(values: unknown[], now: Date): Row {
  const row: Row = Object.fromEntries(PLAN_COLUMNS.split(', ').map((c, i) => [c, values[i]]));
  return { ...row, created_at: now, updated_at: now };
}

/** The loaded prices that are the tenant's (searched by id alone, as the service does). */
export function ownPrices(rows: Row[], tenant: Tenant): Row[] {
  return rows.filter(
    (r) => r.organization_id === tenant.organizationId && Boolean(r.livemode) === tenant.livemode,
  );
}

/** The plan rules that need the loaded prices: present, live, free, of the product, one per metric. */
export function priceProblem(ids: string[], rows: Row[], productId: string): string | null {
  const byId = new Map(rows.map((r) => [r.id as string, r]));
  const metrics = new Set<unknown>();
  for (const id of ids) {
    const row = byId.get(id);
    if (!row) return `no price ${id}`;
    if (row.deleted_at !== null) return `${id} was deleted`;
    if (row.metric_product_id !== productId) return `${id} is not for this product`;
    if (metrics.has(row.billable_metric_id)) return `${id} repeats a metric`;
    if (row.plan_id !== null) return `${id} is in use`;
    metrics.add(row.billable_metric_id);
  }
  return null;
}
