import { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1763700000000 implements MigrationInterface {
  name = 'Foundation1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "organizations" (
        "id" varchar(48) PRIMARY KEY,
        "name" varchar(200) NOT NULL,
        "created_at" timestamptz(3) NOT NULL,
        "updated_at" timestamptz(3) NOT NULL
      )`);
    await q.query(`
      CREATE TABLE "api_keys" (
        "id" varchar(48) PRIMARY KEY,
        "organization_id" varchar(48) NOT NULL REFERENCES "organizations" ("id"),
        "key_hash" varchar(64) NOT NULL,
        "mode" varchar(4) NOT NULL,
        "last4" varchar(4) NOT NULL,
        "created_at" timestamptz(3) NOT NULL,
        "revoked_at" timestamptz(3)
      )`);
    await q.query(`CREATE UNIQUE INDEX "ux_api_keys_key_hash" ON "api_keys" ("key_hash")`);
    await q.query(
      `CREATE INDEX "ix_api_keys_organization" ON "api_keys" ("organization_id", "created_at")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "api_keys"`);
    await q.query(`DROP TABLE "organizations"`);
  }
}
