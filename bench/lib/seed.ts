import { createHash, randomBytes } from 'node:crypto';
import { ID_PREFIXES, newId } from '../../src/common/ids';
import { AccountNumberVault } from '../../src/external-accounts/account-number-vault';
import { Column, SqlClient } from './database';

/** One organization with a live key, a product and three billable metrics of it. */
export interface Tenant {
  organizationId: string;
  apiKey: string;
  productId: string;
  metricIds: [string, string, string];
}

const PLAN_COLUMNS: Column[] = [
  { name: 'id', pg: 'varchar' },
  { name: 'organization_id', pg: 'varchar' },
  { name: 'product_id', pg: 'varchar' },
  { name: 'name', pg: 'varchar' },
  { name: 'invoice_display_name', pg: 'varchar' },
  { name: 'description', pg: 'varchar' },
  { name: 'billing_interval', pg: 'varchar' },
  { name: 'currency', pg: 'varchar' },
  { name: 'tax_behavior', pg: 'varchar' },
  { name: 'tax_code', pg: 'varchar' },
  { name: 'tax_rate', pg: 'varchar' },
  { name: 'created_at', pg: 'timestamptz' },
  { name: 'updated_at', pg: 'timestamptz' },
  { name: 'deleted_at', pg: 'timestamptz' },
];

const PRICE_COLUMNS: Column[] = [
  { name: 'id', pg: 'varchar' },
  { name: 'organization_id', pg: 'varchar' },
  { name: 'billable_metric_id', pg: 'varchar' },
  { name: 'plan_id', pg: 'varchar' },
  { name: 'plan_position', pg: 'int' },
  { name: 'model', pg: 'varchar' },
  { name: 'invoice_display_name', pg: 'varchar' },
  { name: 'properties', pg: 'jsonb' },
  { name: 'created_at', pg: 'timestamptz' },
  { name: 'updated_at', pg: 'timestamptz' },
  { name: 'deleted_at', pg: 'timestamptz' },
];

const ACCOUNT_COLUMNS: Column[] = [
  { name: 'id', pg: 'varchar' },
  { name: 'organization_id', pg: 'varchar' },
  { name: 'country_code', pg: 'varchar' },
  { name: 'bank_name', pg: 'varchar' },
  { name: 'currency', pg: 'varchar' },
  { name: 'account_number_encrypted', pg: 'text' },
  { name: 'last4', pg: 'varchar' },
  { name: 'fingerprint', pg: 'varchar' },
  { name: 'routing_number', pg: 'varchar' },
  { name: 'account_holder_name', pg: 'varchar' },
  { name: 'account_holder_type', pg: 'varchar' },
  { name: 'status', pg: 'varchar' },
  { name: 'status_reason', pg: 'varchar' },
  { name: 'metadata', pg: 'jsonb' },
  { name: 'created_at', pg: 'timestamptz' },
  { name: 'updated_at', pg: 'timestamptz' },
  { name: 'deleted_at', pg: 'timestamptz' },
];

function priceRow(
  tenant: Tenant,
  metricId: string,
  planId: string | null,
  position: number | null,
  at: Date,
): unknown[] {
  return [
    newId(ID_PREFIXES.price),
    tenant.organizationId,
    metricId,
    planId,
    position,
    'standard',
    'API calls',
    { unitPrice: '0.25' },
    at,
    at,
    null,
  ];
}

// Not imported from src/auth: that would load the entity files before DATABASE_URL is known.
function generateApiKey(): string {
  return `sk_live_${randomBytes(24)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, '')
    .padEnd(32, '0')
    .slice(0, 32)}`;
}

/** As ApiKeysService stores a key: its SHA-256 in hex. */
function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** An organization, its API key (stored as the service stores it: a hash), a product, 3 metrics. */
export async function seedTenant(sql: SqlClient, name: string): Promise<Tenant> {
  const now = new Date();
  const organizationId = newId(ID_PREFIXES.organization);
  const apiKey = generateApiKey();
  const productId = newId(ID_PREFIXES.product);
  const metricIds = [1, 2, 3].map(() => newId(ID_PREFIXES.billableMetric)) as Tenant['metricIds'];
  await sql.run(
    'INSERT INTO organizations (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)',
    [organizationId, name, now, now],
  );
  await sql.run(
    'INSERT INTO api_keys (id, organization_id, key_hash, mode, last4, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, NULL)',
    [newId(ID_PREFIXES.apiKey), organizationId, hashApiKey(apiKey), 'live', apiKey.slice(-4), now],
  );
  await sql.run(
    'INSERT INTO products (id, organization_id, name, description, metadata, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?, ?)',
    [productId, organizationId, 'API access', {}, now, now],
  );
  for (const [i, id] of metricIds.entries()) {
    await sql.run(
      'INSERT INTO billable_metrics (id, organization_id, product_id, name, description, unit, aggregation, value_property, event_type, created_at, updated_at) VALUES (?, ?, ?, ?, NULL, ?, ?, NULL, NULL, ?, ?)',
      [id, organizationId, productId, `Metric ${i + 1}`, 'calls', 'COUNT', now, now],
    );
  }
  return { organizationId, apiKey, productId, metricIds };
}

/**
 * `count` plans of the tenant's product, each holding three prices (one per metric), created one
 * millisecond apart and ending now. Inserted in chunks so a million stays within memory.
 */
export async function seedPlans(sql: SqlClient, tenant: Tenant, count: number): Promise<void> {
  const chunk = 50_000;
  const start = Date.now() - count;
  for (let first = 0; first < count; first += chunk) {
    const plans: unknown[][] = [];
    const prices: unknown[][] = [];
    for (let i = first; i < Math.min(count, first + chunk); i++) {
      const at = new Date(start + i);
      const planId = newId(ID_PREFIXES.plan);
      plans.push([
        planId,
        tenant.organizationId,
        tenant.productId,
        `Plan ${i}`,
        `Plan ${i}`,
        null,
        'monthly',
        'USD',
        'exclusive',
        null,
        '0',
        at,
        at,
        null,
      ]);
      tenant.metricIds.forEach((metricId, position) =>
        prices.push(priceRow(tenant, metricId, planId, position, at)),
      );
    }
    await sql.insertRows('plans', PLAN_COLUMNS, plans);
    await sql.insertRows('prices', PRICE_COLUMNS, prices);
  }
  // The counts the service keeps with each create (PlanCount), as its migration fills them.
  await sql.run(
    'INSERT INTO plan_counts (organization_id, livemode, product_id, deleted, slot, plans) VALUES (?, ?, ?, 0, 0, ?) ' +
      'ON CONFLICT (organization_id, livemode, product_id, deleted, slot) DO UPDATE SET plans = plan_counts.plans + excluded.plans',
    [tenant.organizationId, true, tenant.productId, count],
  );
}

/** `count` sets of three free prices (one per metric): the prices list of one POST /v0/plans. */
export async function seedFreePriceTriples(
  sql: SqlClient,
  tenant: Tenant,
  count: number,
): Promise<string[][]> {
  const triples: string[][] = [];
  const chunk = 50_000;
  for (let first = 0; first < count; first += chunk) {
    const rows: unknown[][] = [];
    const at = new Date();
    for (let i = first; i < Math.min(count, first + chunk); i++) {
      const triple = tenant.metricIds.map((metricId) => priceRow(tenant, metricId, null, null, at));
      triples.push(triple.map((row) => row[0] as string));
      rows.push(...triple);
    }
    await sql.insertRows('prices', PRICE_COLUMNS, rows);
  }
  return triples;
}

/** `count` US bank accounts of the tenant, encrypted as the service encrypts them. */
export async function seedExternalAccounts(
  sql: SqlClient,
  tenant: Tenant,
  count: number,
  encryptionKey: Buffer,
): Promise<string[]> {
  const vault = new AccountNumberVault({ encryptionKey });
  const ids: string[] = [];
  const rows: unknown[][] = [];
  const at = new Date();
  for (let i = 0; i < count; i++) {
    const id = newId(ID_PREFIXES.externalBankAccount);
    const accountNumber = String(100000000 + i);
    ids.push(id);
    rows.push([
      id,
      tenant.organizationId,
      'US',
      'STRIPE TEST BANK',
      'USD',
      vault.encrypt(accountNumber, id),
      accountNumber.slice(-4),
      vault.fingerprint('US', '110000000', accountNumber),
      '110000000',
      'Jenny Rosen',
      'individual',
      'pending',
      null,
      { payoutSchedule: 'weekly' },
      at,
      at,
      null,
    ]);
  }
  await sql.insertRows('external_bank_accounts', ACCOUNT_COLUMNS, rows);
  return ids;
}

/** Ids of the tenant's live plans, newest first, at most `limit`, spread over the whole table. */
export async function samplePlanIds(
  sql: SqlClient,
  tenant: Tenant,
  limit: number,
): Promise<string[]> {
  const rows = await sql.all<{ id: string }>(
    'SELECT id FROM plans WHERE organization_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, id DESC',
    [tenant.organizationId],
  );
  const step = Math.max(1, Math.floor(rows.length / limit));
  const ids: string[] = [];
  for (let i = 0; i < rows.length && ids.length < limit; i += step) ids.push(rows[i].id);
  return ids;
}
