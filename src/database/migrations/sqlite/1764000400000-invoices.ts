import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Invoices (docs/api.md §5.12), their lines, and the last number given per organization and mode.
 * The unique index on (subscription, period start) is what makes a period invoiced once, however
 * many billing runs reach it. Amounts are decimal strings. No foreign key to customers or
 * subscriptions: neither is ever deleted for real, and an invoice outlives a deleted customer.
 */
export class Invoices1764000400000 implements MigrationInterface {
  name = 'Invoices1764000400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "invoices" (
        "id" varchar(48) PRIMARY KEY NOT NULL,
        "organization_id" varchar(48) NOT NULL,
        "livemode" boolean NOT NULL,
        "customer_id" varchar(48) NOT NULL,
        "subscription_id" varchar(48) NOT NULL,
        "plan_id" varchar(48) NOT NULL,
        "number" varchar(20),
        "status" varchar(10) NOT NULL,
        "currency" varchar(3) NOT NULL,
        "period_start" datetime NOT NULL,
        "period_end" datetime NOT NULL,
        "subtotal" varchar(48) NOT NULL,
        "tax_behavior" varchar(10) NOT NULL,
        "tax_rate" varchar(20) NOT NULL,
        "tax_amount" varchar(48) NOT NULL,
        "total" varchar(48) NOT NULL,
        "customer" text NOT NULL,
        "test_clock_id" varchar(48),
        "grace_ends_at" datetime NOT NULL,
        "issue_due_at" datetime,
        "issued_at" datetime,
        "paid_at" datetime,
        "voided_at" datetime,
        "payment_reference" varchar(200),
        "created_at" datetime NOT NULL,
        "updated_at" datetime NOT NULL,
        CONSTRAINT "invoices_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id")
      )`);
    await q.query(
      `CREATE UNIQUE INDEX "ux_invoices_subscription_period" ON "invoices" ("subscription_id", "period_start")`,
    );
    await q.query(
      `CREATE INDEX "ix_invoices_org_mode_created" ON "invoices" ("organization_id", "livemode", "created_at", "id")`,
    );
    await q.query(`CREATE INDEX "ix_invoices_issue_due" ON "invoices" ("issue_due_at")`);
    await q.query(
      `CREATE INDEX "ix_invoices_clock_grace" ON "invoices" ("test_clock_id", "grace_ends_at")`,
    );
    await q.query(`
      CREATE TABLE "invoice_lines" (
        "id" varchar(48) PRIMARY KEY NOT NULL,
        "invoice_id" varchar(48) NOT NULL,
        "position" integer NOT NULL,
        "type" varchar(10) NOT NULL,
        "description" varchar(200) NOT NULL,
        "price_id" varchar(48),
        "billable_metric_id" varchar(48),
        "model" varchar(20),
        "price_properties" text,
        "quantity" varchar(80),
        "amount" varchar(48) NOT NULL,
        "period_start" datetime NOT NULL,
        "period_end" datetime NOT NULL,
        CONSTRAINT "invoice_lines_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices" ("id")
      )`);
    await q.query(
      `CREATE INDEX "ix_invoice_lines_invoice" ON "invoice_lines" ("invoice_id", "position")`,
    );
    await q.query(`
      CREATE TABLE "invoice_numbers" (
        "organization_id" varchar(48) NOT NULL,
        "livemode" boolean NOT NULL,
        "last_number" integer NOT NULL,
        PRIMARY KEY ("organization_id", "livemode")
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "invoice_numbers"`);
    await q.query(`DROP TABLE "invoice_lines"`);
    await q.query(`DROP TABLE "invoices"`);
  }
}
