import { MigrationInterface, QueryRunner } from 'typeorm';

/** Idempotency-Key records (docs/api.md §6): one row per organization and key, for 24 hours. */
export class Idempotency1763700004000 implements MigrationInterface {
  name = 'Idempotency1763700004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "idempotency_records" (
        "id" varchar(48) PRIMARY KEY NOT NULL,
        "organization_id" varchar(48) NOT NULL REFERENCES "organizations" ("id"),
        "idempotency_key" varchar(255) NOT NULL,
        "request_method" varchar(10) NOT NULL,
        "request_path" text NOT NULL,
        "request_hash" varchar(64) NOT NULL,
        "request_id" varchar(128) NOT NULL,
        "state" varchar(12) NOT NULL,
        "locked_until" datetime,
        "response_status" integer,
        "response_headers" text,
        "response_body" text,
        "created_at" datetime NOT NULL,
        "expires_at" datetime NOT NULL
      )`);
    await q.query(
      `CREATE UNIQUE INDEX "ux_idempotency_records_org_key" ON "idempotency_records" ("organization_id", "idempotency_key")`,
    );
    await q.query(
      `CREATE INDEX "ix_idempotency_records_expires" ON "idempotency_records" ("expires_at")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "idempotency_records"`);
  }
}
