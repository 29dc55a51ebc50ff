import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints, deliveries (the dispatcher's durable state, one per event and endpoint) and
 * attempts (docs/api.md §5.7).
 */
export class Webhooks1763700011000 implements MigrationInterface {
  name = 'Webhooks1763700011000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "webhook_endpoints" (
        "id" varchar(48) PRIMARY KEY,
        "organization_id" varchar(48) NOT NULL,
        "livemode" boolean NOT NULL,
        "url" varchar(2048) NOT NULL,
        "enabled_events" jsonb NOT NULL,
        "description" varchar(2000),
        "metadata" jsonb NOT NULL,
        "status" varchar(8) NOT NULL,
        "secret_encrypted" text NOT NULL,
        "previous_secret_encrypted" text,
        "previous_secret_expires_at" timestamptz(3),
        "failing_since" timestamptz(3),
        "created_at" timestamptz(3) NOT NULL,
        "updated_at" timestamptz(3) NOT NULL,
        "deleted_at" timestamptz(3),
        CONSTRAINT "webhook_endpoints_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id"),
        CONSTRAINT "webhook_endpoints_status_check" CHECK ("status" IN ('enabled', 'disabled'))
      )`);
    await q.query(
      `CREATE INDEX "ix_webhook_endpoints_org_mode_live" ON "webhook_endpoints" ("organization_id", "livemode", "created_at", "id") WHERE "deleted_at" IS NULL`,
    );
    await q.query(`
      CREATE TABLE "webhook_deliveries" (
        "id" varchar(48) PRIMARY KEY,
        "endpoint_id" varchar(48) NOT NULL,
        "event_id" varchar(48) NOT NULL,
        "status" varchar(10) NOT NULL,
        "attempts" integer NOT NULL,
        "next_attempt_at" timestamptz(3),
        "lease_token" varchar(48),
        "created_at" timestamptz(3) NOT NULL,
        "updated_at" timestamptz(3) NOT NULL,
        CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints" ("id"),
        CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events" ("id"),
        CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('pending', 'succeeded', 'failed', 'canceled'))
      )`);
    await q.query(
      `CREATE UNIQUE INDEX "ux_webhook_deliveries_event_endpoint" ON "webhook_deliveries" ("event_id", "endpoint_id")`,
    );
    await q.query(
      `CREATE INDEX "ix_webhook_deliveries_due" ON "webhook_deliveries" ("next_attempt_at") WHERE "next_attempt_at" IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_webhook_deliveries_endpoint_due" ON "webhook_deliveries" ("endpoint_id") WHERE "next_attempt_at" IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE "webhook_attempts" (
        "id" varchar(48) PRIMARY KEY,
        "delivery_id" varchar(48) NOT NULL,
        "endpoint_id" varchar(48) NOT NULL,
        "event_id" varchar(48) NOT NULL,
        "attempt" integer NOT NULL,
        "succeeded" boolean NOT NULL,
        "status_code" integer,
        "duration_ms" integer NOT NULL,
        "error" varchar(500),
        "next_retry_at" timestamptz(3),
        "created_at" timestamptz(3) NOT NULL,
        CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries" ("id"),
        CONSTRAINT "webhook_attempts_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints" ("id")
      )`);
    await q.query(
      `CREATE INDEX "ix_webhook_attempts_endpoint_created" ON "webhook_attempts" ("endpoint_id", "created_at", "id")`,
    );
    await q.query(
      `CREATE INDEX "ix_webhook_attempts_endpoint_event_created" ON "webhook_attempts" ("endpoint_id", "event_id", "created_at", "id")`,
    );
    await q.query(
      `CREATE INDEX "ix_webhook_attempts_delivery" ON "webhook_attempts" ("delivery_id")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "webhook_attempts"`);
    await q.query(`DROP TABLE "webhook_deliveries"`);
    await q.query(`DROP TABLE "webhook_endpoints"`);
  }
}
