import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Usage events (docs/api.md §5.11). The unique key stores an idempotency key once per
 * organization and mode (INSERT … ON CONFLICT DO NOTHING); the aggregation searches
 * (organization, mode, customer, type, timestamp); the list pages by (organization, mode, id).
 * No foreign key to customers: the customer is checked at ingestion and never deleted for real.
 */
export class UsageEvents1764000300000 implements MigrationInterface {
  name = 'UsageEvents1764000300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "usage_events" (
        "id" varchar(48) PRIMARY KEY,
        "organization_id" varchar(48) NOT NULL,
        "livemode" boolean NOT NULL,
        "idempotency_key" varchar(255) NOT NULL,
        "customer_id" varchar(48) NOT NULL,
        "type" varchar(100) NOT NULL,
        "timestamp" timestamptz(3) NOT NULL,
        "data" json NOT NULL,
        "created_at" timestamptz(3) NOT NULL,
        CONSTRAINT "usage_events_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id")
      )`);
    await q.query(
      `CREATE UNIQUE INDEX "ux_usage_events_org_mode_key" ON "usage_events" ("organization_id", "livemode", "idempotency_key")`,
    );
    await q.query(
      `CREATE INDEX "ix_usage_events_org_mode_customer_type_ts" ON "usage_events" ("organization_id", "livemode", "customer_id", "type", "timestamp")`,
    );
    await q.query(
      `CREATE INDEX "ix_usage_events_org_mode_id" ON "usage_events" ("organization_id", "livemode", "id")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "usage_events"`);
  }
}
