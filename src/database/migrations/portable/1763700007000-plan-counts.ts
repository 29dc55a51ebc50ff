import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Plan counts per organization, product and state (see PlanCount), so that a list's total does
 * not count rows: filled from the plans already stored, into slot 0.
 */
export class PlanCounts1763700007000 implements MigrationInterface {
  name = 'PlanCounts1763700007000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "plan_counts" (
        "organization_id" varchar(48) NOT NULL,
        "product_id" varchar(48) NOT NULL,
        "deleted" smallint NOT NULL,
        "slot" smallint NOT NULL,
        "plans" integer NOT NULL,
        PRIMARY KEY ("organization_id", "product_id", "deleted", "slot")
      )`);
    await q.query(`
      INSERT INTO "plan_counts" ("organization_id", "product_id", "deleted", "slot", "plans")
      SELECT "organization_id", "product_id",
             CASE WHEN "deleted_at" IS NULL THEN 0 ELSE 1 END, 0, COUNT(*)
      FROM "plans"
      GROUP BY "organization_id", "product_id", CASE WHEN "deleted_at" IS NULL THEN 0 ELSE 1 END`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "plan_counts"`);
  }
}
