import { MigrationInterface, QueryRunner } from 'typeorm';

export class ExternalAccounts1763700003000 implements MigrationInterface {
  name = 'ExternalAccounts1763700003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "external_bank_accounts" (
        "id" varchar(48) PRIMARY KEY,
        "organization_id" varchar(48) NOT NULL REFERENCES "organizations" ("id"),
        "country_code" varchar(2) NOT NULL,
        "bank_name" varchar(200) NOT NULL,
        "currency" varchar(3) NOT NULL,
        "account_number_encrypted" text NOT NULL,
        "last4" varchar(4) NOT NULL,
        "fingerprint" varchar(64) NOT NULL,
        "routing_number" varchar(34) NOT NULL,
        "account_holder_name" varchar(200) NOT NULL,
        "account_holder_type" varchar(10) NOT NULL
          CHECK ("account_holder_type" IN ('individual', 'company')),
        "status" varchar(10) NOT NULL CHECK ("status" IN ('pending', 'verified', 'errored')),
        "status_reason" varchar(500),
        "metadata" jsonb NOT NULL,
        "created_at" timestamptz(3) NOT NULL,
        "updated_at" timestamptz(3) NOT NULL,
        "deleted_at" timestamptz(3)
      )`);
    await q.query(
      `CREATE INDEX "ix_external_bank_accounts_org_created" ON "external_bank_accounts" ("organization_id", "created_at", "id")`,
    );
    // One live account per organization and bank details; a deleted one no longer counts.
    await q.query(
      `CREATE UNIQUE INDEX "ux_external_bank_accounts_org_fingerprint" ON "external_bank_accounts" ("organization_id", "fingerprint") WHERE "deleted_at" IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "external_bank_accounts"`);
  }
}
