import { MigrationInterface, QueryRunner } from 'typeorm';

export class Catalog1763700001000 implements MigrationInterface {
  name = 'Catalog1763700001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "products" (
        "id" varchar(48) PRIMARY KEY NOT NULL,
        "organization_id" varchar(48) NOT NULL REFERENCES "organizations" ("id"),
        "name" varchar(200) NOT NULL,
        "description" varchar(2000),
        "metadata" text NOT NULL,
        "created_at" datetime NOT NULL,
        "updated_at" datetime NOT NULL
      )`);
    await q.query(
      `CREATE INDEX "ix_products_org_created" ON "products" ("organization_id", "created_at", "id")`,
    );
    await q.query(`
      CREATE TABLE "billable_metrics" (
        "id" varchar(48) PRIMARY KEY NOT NULL,
        "organization_id" varchar(48) NOT NULL REFERENCES "organizations" ("id"),
        "product_id" varchar(48) NOT NULL REFERENCES "products" ("id"),
        "name" varchar(200) NOT NULL,
        "description" varchar(2000),
        "unit" varchar(200) NOT NULL,
        "aggregation" varchar(20) NOT NULL,
        "value_property" varchar(200),
        "event_type" varchar(200),
        "created_at" datetime NOT NULL,
        "updated_at" datetime NOT NULL
      )`);
    await q.query(
      `CREATE INDEX "ix_billable_metrics_org_created" ON "billable_metrics" ("organization_id", "created_at", "id")`,
    );
    await q.query(
      `CREATE INDEX "ix_billable_metrics_org_product" ON "billable_metrics" ("organization_id", "product_id", "created_at", "id")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "billable_metrics"`);
    await q.query(`DROP TABLE "products"`);
  }
}
