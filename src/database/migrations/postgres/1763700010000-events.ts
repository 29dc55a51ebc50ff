import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events (docs/api.md §5.6): the transactional outbox. A list page is an index search on
 * (organization, mode[, type | resource], created_at, id); the retention sweep reads created_at.
 */
export class Events1763700010000 implements MigrationInterface {
  name = 'Events1763700010000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "events" (
        "id" varchar(48) PRIMARY KEY,
        "organization_id" varchar(48) NOT NULL,
        "livemode" boolean NOT NULL,
        "type" varchar(64) NOT NULL,
        "resource" varchar(64) NOT NULL,
        "data" jsonb NOT NULL,
        "request_id" varchar(128),
        "idempotency_key" varchar(255),
        "actor_type" varchar(16) NOT NULL,
        "actor_id" varchar(48),
        "created_at" timestamptz(3) NOT NULL,
        CONSTRAINT "events_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id")
      )`);
    await q.query(
      `CREATE INDEX "ix_events_org_mode_created" ON "events" ("organization_id", "livemode", "created_at", "id")`,
    );
    await q.query(
      `CREATE INDEX "ix_events_org_mode_type_created" ON "events" ("organization_id", "livemode", "type", "created_at", "id")`,
    );
    await q.query(
      `CREATE INDEX "ix_events_org_mode_resource_created" ON "events" ("organization_id", "livemode", "resource", "created_at", "id")`,
    );
    await q.query(`CREATE INDEX "ix_events_created" ON "events" ("created_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "events"`);
  }
}
