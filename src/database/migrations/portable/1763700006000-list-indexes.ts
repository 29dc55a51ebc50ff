import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An index for every list filter and ordering (test/database/list-indexes.e2e-spec.ts proves them): the
 * page of each list (`ORDER BY created_at DESC, id DESC`), with each filter alone or none, and its
 * COUNT are one index search within the organization, with no sort and no row read only to be
 * dropped. A list that hides deleted rows has a partial index `WHERE "deleted_at" IS NULL`; one
 * that can show them (includeDeleted=true) has a full index as well.
 *
 * PostgreSQL does not take `"deleted_at" IS NULL` as an equality when it orders by the columns
 * after it, so `(organization_id, deleted_at, created_at, id)` still sorted every live list; a
 * partial index without `deleted_at` does not. SQLite did take it as one, but not for lists with
 * deleted rows. The statements are the same on both databases (the entities declare them).
 *
 * The indexes dropped answered a subset of what replaces them: on plans `(organization_id,
 * [product_id,] deleted_at, created_at, id)`; on prices `(billable_metric_id, created_at, id)`,
 * which no query uses alone (a price's organization is its metric's, and the list filters by
 * both); on external_bank_accounts `(organization_id, created_at, id)`, while every query there
 * skips deleted accounts.
 */
export class ListIndexes1763700006000 implements MigrationInterface {
  name = 'ListIndexes1763700006000';

  async up(q: QueryRunner): Promise<void> {
    for (const [, definition] of CREATED) await q.query(definition);
    for (const [name] of DROPPED) await q.query(`DROP INDEX "${name}"`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [, definition] of DROPPED) await q.query(definition);
    for (const [name] of CREATED) await q.query(`DROP INDEX "${name}"`);
  }
}

const CREATED: [name: string, definition: string][] = [
  [
    'ix_plans_org_created',
    `CREATE INDEX "ix_plans_org_created" ON "plans" ("organization_id", "created_at", "id")`,
  ],
  [
    'ix_plans_org_live',
    `CREATE INDEX "ix_plans_org_live" ON "plans" ("organization_id", "created_at", "id") WHERE "deleted_at" IS NULL`,
  ],
  [
    'ix_plans_org_product_created',
    `CREATE INDEX "ix_plans_org_product_created" ON "plans" ("organization_id", "product_id", "created_at", "id")`,
  ],
  [
    'ix_plans_org_product_live',
    `CREATE INDEX "ix_plans_org_product_live" ON "plans" ("organization_id", "product_id", "created_at", "id") WHERE "deleted_at" IS NULL`,
  ],
  [
    'ix_prices_org_live',
    `CREATE INDEX "ix_prices_org_live" ON "prices" ("organization_id", "created_at", "id") WHERE "deleted_at" IS NULL`,
  ],
  [
    'ix_prices_org_metric_created',
    `CREATE INDEX "ix_prices_org_metric_created" ON "prices" ("organization_id", "billable_metric_id", "created_at", "id")`,
  ],
  [
    'ix_prices_org_metric_live',
    `CREATE INDEX "ix_prices_org_metric_live" ON "prices" ("organization_id", "billable_metric_id", "created_at", "id") WHERE "deleted_at" IS NULL`,
  ],
  [
    'ix_prices_org_plan_created',
    `CREATE INDEX "ix_prices_org_plan_created" ON "prices" ("organization_id", "plan_id", "created_at", "id")`,
  ],
  [
    'ix_prices_org_plan_live',
    `CREATE INDEX "ix_prices_org_plan_live" ON "prices" ("organization_id", "plan_id", "created_at", "id") WHERE "deleted_at" IS NULL`,
  ],
  [
    'ix_external_bank_accounts_org_live',
    `CREATE INDEX "ix_external_bank_accounts_org_live" ON "external_bank_accounts" ("organization_id", "created_at", "id") WHERE "deleted_at" IS NULL`,
  ],
  [
    'ix_external_bank_accounts_org_status_live',
    `CREATE INDEX "ix_external_bank_accounts_org_status_live" ON "external_bank_accounts" ("organization_id", "status", "created_at", "id") WHERE "deleted_at" IS NULL`,
  ],
  [
    'ix_external_bank_accounts_org_currency_live',
    `CREATE INDEX "ix_external_bank_accounts_org_currency_live" ON "external_bank_accounts" ("organization_id", "currency", "created_at", "id") WHERE "deleted_at" IS NULL`,
  ],
  [
    'ix_external_bank_accounts_org_country_live',
    `CREATE INDEX "ix_external_bank_accounts_org_country_live" ON "external_bank_accounts" ("organization_id", "country_code", "created_at", "id") WHERE "deleted_at" IS NULL`,
  ],
];

/** What `up` drops, as migrations 1763700002000 and 1763700003000 created it. */
const DROPPED: [name: string, definition: string][] = [
  [
    'ix_plans_org_live_created',
    `CREATE INDEX "ix_plans_org_live_created" ON "plans" ("organization_id", "deleted_at", "created_at", "id")`,
  ],
  [
    'ix_plans_org_product',
    `CREATE INDEX "ix_plans_org_product" ON "plans" ("organization_id", "product_id", "deleted_at", "created_at", "id")`,
  ],
  [
    'ix_prices_billable_metric',
    `CREATE INDEX "ix_prices_billable_metric" ON "prices" ("billable_metric_id", "created_at", "id")`,
  ],
  [
    'ix_external_bank_accounts_org_created',
    `CREATE INDEX "ix_external_bank_accounts_org_created" ON "external_bank_accounts" ("organization_id", "created_at", "id")`,
  ],
];
