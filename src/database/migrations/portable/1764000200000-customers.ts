import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customers and test clocks (docs/api.md §5.8, §5.9).
 *
 * - `ux_customers_org_mode_external_id`: `externalId` is unique per organization and mode among
 *   customers not deleted (409 DUPLICATE_CUSTOMER, also when two creates race).
 * - `ix_customers_org_mode_email`: the list's `email` filter.
 * - `subscription_count`: the customer's `active` and `pending` subscriptions, kept by the
 *   subscriptions module (a DELETE with any is a 409 CUSTOMER_HAS_SUBSCRIPTIONS).
 * - `ix_customers_test_clock`: how many customers a clock holds (at most 100; a clock with
 *   customers is not deleted).
 *
 * The statements are the same on both databases but for the spelling of the timestamp and JSON
 * types.
 */
export class Customers1764000200000 implements MigrationInterface {
  name = 'Customers1764000200000';

  async up(q: QueryRunner): Promise<void> {
    const postgres = q.connection.options.type === 'postgres';
    const timestamp = postgres ? 'timestamptz(3)' : 'datetime';
    const json = postgres ? 'jsonb' : 'text';
    await q.query(`
      CREATE TABLE "test_clocks" (
        "id" varchar(48) PRIMARY KEY NOT NULL,
        "organization_id" varchar(48) NOT NULL,
        "livemode" boolean NOT NULL,
        "name" varchar(200),
        "frozen_time" ${timestamp} NOT NULL,
        "created_at" ${timestamp} NOT NULL,
        "updated_at" ${timestamp} NOT NULL,
        "deleted_at" ${timestamp},
        CONSTRAINT "test_clocks_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id"))`);
    await q.query(
      `CREATE INDEX "ix_test_clocks_org_mode_live" ON "test_clocks" ("organization_id", "livemode", "created_at", "id") WHERE "deleted_at" IS NULL`,
    );
    await q.query(`
      CREATE TABLE "customers" (
        "id" varchar(48) PRIMARY KEY NOT NULL,
        "organization_id" varchar(48) NOT NULL,
        "livemode" boolean NOT NULL,
        "name" varchar(200) NOT NULL,
        "email" varchar(254) NOT NULL,
        "external_id" varchar(200),
        "address" ${json},
        "tax_id" varchar(50),
        "test_clock_id" varchar(48),
        "metadata" ${json} NOT NULL,
        "subscription_count" integer NOT NULL DEFAULT 0,
        "created_at" ${timestamp} NOT NULL,
        "updated_at" ${timestamp} NOT NULL,
        "deleted_at" ${timestamp},
        CONSTRAINT "customers_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id"),
        CONSTRAINT "customers_test_clock_id_fkey" FOREIGN KEY ("test_clock_id") REFERENCES "test_clocks" ("id"))`);
    await q.query(
      `CREATE INDEX "ix_customers_org_mode_live" ON "customers" ("organization_id", "livemode", "created_at", "id") WHERE "deleted_at" IS NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_customers_org_mode_email" ON "customers" ("organization_id", "livemode", "email") WHERE "deleted_at" IS NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX "ux_customers_org_mode_external_id" ON "customers" ("organization_id", "livemode", "external_id") WHERE "deleted_at" IS NULL AND "external_id" IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_customers_test_clock" ON "customers" ("test_clock_id") WHERE "deleted_at" IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "customers"`);
    await q.query(`DROP TABLE "test_clocks"`);
  }
}
