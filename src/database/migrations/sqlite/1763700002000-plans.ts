import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Plans and prices. A price points at its plan (plan_id, null while free) and keeps its place in
 * the plan's list (plan_position). Amounts stay decimal strings: tax_rate is text and price
 * properties are JSON (text) holding strings, so values come back exactly as sent.
 */
export class Plans1763700002000 implements MigrationInterface {
  name = 'Plans1763700002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "plans" (
        "id" varchar(48) PRIMARY KEY NOT NULL,
        "organization_id" varchar(48) NOT NULL REFERENCES "organizations" ("id"),
        "product_id" varchar(48) NOT NULL REFERENCES "products" ("id"),
        "name" varchar(200) NOT NULL,
        "invoice_display_name" varchar(200) NOT NULL,
        "description" varchar(2000),
        "billing_interval" varchar(20) NOT NULL,
        "currency" varchar(3) NOT NULL,
        "tax_behavior" varchar(10) NOT NULL,
        "tax_code" varchar(50),
        "tax_rate" varchar(20) NOT NULL,
        "created_at" datetime NOT NULL,
        "updated_at" datetime NOT NULL,
        "deleted_at" datetime
      )`);
    await q.query(
      `CREATE INDEX "ix_plans_org_live_created" ON "plans" ("organization_id", "deleted_at", "created_at", "id")`,
    );
    await q.query(
      `CREATE INDEX "ix_plans_org_product" ON "plans" ("organization_id", "product_id", "deleted_at", "created_at", "id")`,
    );
    await q.query(`
      CREATE TABLE "prices" (
        "id" varchar(48) PRIMARY KEY NOT NULL,
        "organization_id" varchar(48) NOT NULL REFERENCES "organizations" ("id"),
        "billable_metric_id" varchar(48) NOT NULL REFERENCES "billable_metrics" ("id"),
        "plan_id" varchar(48) REFERENCES "plans" ("id"),
        "plan_position" integer,
        "model" varchar(20) NOT NULL,
        "invoice_display_name" varchar(200) NOT NULL,
        "properties" text NOT NULL,
        "created_at" datetime NOT NULL,
        "updated_at" datetime NOT NULL,
        "deleted_at" datetime
      )`);
    await q.query(
      `CREATE INDEX "ix_prices_org_created" ON "prices" ("organization_id", "created_at", "id")`,
    );
    await q.query(`CREATE INDEX "ix_prices_plan" ON "prices" ("plan_id", "plan_position")`);
    await q.query(
      `CREATE INDEX "ix_prices_billable_metric" ON "prices" ("billable_metric_id", "created_at", "id")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "prices"`);
    await q.query(`DROP TABLE "plans"`);
  }
}
