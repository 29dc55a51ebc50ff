import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Test mode and live mode (docs/api.md §2): every resource and idempotency record gets
 * `livemode`, and rows stored before modes existed are live (the column's default, which the
 * service never relies on: every insert names the mode). Every index that starts with the
 * organization now starts with organization and mode, so each list, filter and total is still one
 * index search within one organization's one mode (test/database/list-indexes.e2e-spec.ts); the
 * uniqueness of a bank account and of an Idempotency-Key holds per organization and mode. Plan
 * counts are rebuilt with the mode in their key. The statements are the same on both databases
 * but for the spelling of `true`.
 */
export class Modes1763700012000 implements MigrationInterface {
  name = 'Modes1763700012000';

  async up(q: QueryRunner): Promise<void> {
    // `true` as each database spells a boolean default (and as TypeORM reads it back).
    const live = q.connection.options.type === 'postgres' ? 'true' : '(1)';
    for (const table of MODED_TABLES) {
      await q.query(
        `ALTER TABLE "${table}" ADD COLUMN "livemode" boolean NOT NULL DEFAULT ${live}`,
      );
    }
    for (const index of INDEXES) {
      await q.query(`DROP INDEX "${index.name}"`);
      await q.query(definition(index, true));
    }
    await rebuildPlanCounts(q, true);
  }

  async down(q: QueryRunner): Promise<void> {
    await rebuildPlanCounts(q, false);
    for (const index of INDEXES) {
      await q.query(`DROP INDEX "${modeName(index.name)}"`);
      await q.query(definition(index, false));
    }
    for (const table of MODED_TABLES) {
      await q.query(`ALTER TABLE "${table}" DROP COLUMN "livemode"`);
    }
  }
}

const MODED_TABLES = [
  'products',
  'billable_metrics',
  'prices',
  'plans',
  'external_bank_accounts',
  'idempotency_records',
];

interface OrgIndex {
  /** The name before modes: `<prefix>_org_<rest>`; with modes it is `<prefix>_org_mode_<rest>`. */
  name: string;
  table: string;
  /** The columns after the organization (and, with modes, after the mode). */
  columns: string[];
  unique?: boolean;
  live?: boolean;
}

const INDEXES: OrgIndex[] = [
  { name: 'ix_products_org_created', table: 'products', columns: ['created_at', 'id'] },
  {
    name: 'ix_billable_metrics_org_created',
    table: 'billable_metrics',
    columns: ['created_at', 'id'],
  },
  {
    name: 'ix_billable_metrics_org_product',
    table: 'billable_metrics',
    columns: ['product_id', 'created_at', 'id'],
  },
  { name: 'ix_plans_org_created', table: 'plans', columns: ['created_at', 'id'] },
  { name: 'ix_plans_org_live', table: 'plans', columns: ['created_at', 'id'], live: true },
  {
    name: 'ix_plans_org_product_created',
    table: 'plans',
    columns: ['product_id', 'created_at', 'id'],
  },
  {
    name: 'ix_plans_org_product_live',
    table: 'plans',
    columns: ['product_id', 'created_at', 'id'],
    live: true,
  },
  { name: 'ix_prices_org_created', table: 'prices', columns: ['created_at', 'id'] },
  { name: 'ix_prices_org_live', table: 'prices', columns: ['created_at', 'id'], live: true },
  {
    name: 'ix_prices_org_metric_created',
    table: 'prices',
    columns: ['billable_metric_id', 'created_at', 'id'],
  },
  {
    name: 'ix_prices_org_metric_live',
    table: 'prices',
    columns: ['billable_metric_id', 'created_at', 'id'],
    live: true,
  },
  {
    name: 'ix_prices_org_plan_created',
    table: 'prices',
    columns: ['plan_id', 'created_at', 'id'],
  },
  {
    name: 'ix_prices_org_plan_live',
    table: 'prices',
    columns: ['plan_id', 'created_at', 'id'],
    live: true,
  },
  {
    name: 'ix_external_bank_accounts_org_live',
    table: 'external_bank_accounts',
    columns: ['created_at', 'id'],
    live: true,
  },
  {
    name: 'ix_external_bank_accounts_org_status_live',
    table: 'external_bank_accounts',
    columns: ['status', 'created_at', 'id'],
    live: true,
  },
  {
    name: 'ix_external_bank_accounts_org_currency_live',
    table: 'external_bank_accounts',
    columns: ['currency', 'created_at', 'id'],
    live: true,
  },
  {
    name: 'ix_external_bank_accounts_org_country_live',
    table: 'external_bank_accounts',
    columns: ['country_code', 'created_at', 'id'],
    live: true,
  },
  {
    name: 'ux_external_bank_accounts_org_fingerprint',
    table: 'external_bank_accounts',
    columns: ['fingerprint'],
    unique: true,
    live: true,
  },
  {
    name: 'ux_idempotency_records_org_key',
    table: 'idempotency_records',
    columns: ['idempotency_key'],
    unique: true,
  },
];

function modeName(name: string): string {
  return name.replace('_org_', '_org_mode_');
}

function definition(index: OrgIndex, withMode: boolean): string {
  const columns = ['organization_id', ...(withMode ? ['livemode'] : []), ...index.columns];
  return (
    `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX "${withMode ? modeName(index.name) : index.name}" ` +
    `ON "${index.table}" (${columns.map((c) => `"${c}"`).join(', ')})` +
    (index.live ? ' WHERE "deleted_at" IS NULL' : '')
  );
}

/** plan_counts again, keyed by organization, mode, product, state and slot (or without the mode). */
async function rebuildPlanCounts(q: QueryRunner, withMode: boolean): Promise<void> {
  const mode = withMode ? '"livemode", ' : '';
  await q.query(`
    CREATE TABLE "plan_counts_next" (
      "organization_id" varchar(48) NOT NULL,
      ${withMode ? '"livemode" boolean NOT NULL,' : ''}
      "product_id" varchar(48) NOT NULL,
      "deleted" smallint NOT NULL,
      "slot" smallint NOT NULL,
      "plans" integer NOT NULL,
      PRIMARY KEY ("organization_id", ${mode}"product_id", "deleted", "slot")
    )`);
  // A product's plans are in the product's mode: the counts take it from there.
  await q.query(`
    INSERT INTO "plan_counts_next" ("organization_id", ${mode}"product_id", "deleted", "slot", "plans")
    SELECT c."organization_id", ${withMode ? 'p."livemode", ' : ''}c."product_id", c."deleted", c."slot", c."plans"
    FROM "plan_counts" c JOIN "products" p ON p."id" = c."product_id"`);
  await q.query(`DROP TABLE "plan_counts"`);
  await q.query(`ALTER TABLE "plan_counts_next" RENAME TO "plan_counts"`);
}
