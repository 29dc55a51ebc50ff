import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A `prefix.*` list of events reads the index of exact types, once per type of the resource (at
 * most five index searches of one page each, EventsRepository.pageOfTypes), and no longer needs
 * an index by resource: one B-tree less to write for every event recorded. The `resource`
 * column stays (still written; dropping it would rebuild the table on SQLite). The same
 * statements on both databases.
 */
export class EventsPrefixByType1763700017000 implements MigrationInterface {
  name = 'EventsPrefixByType1763700017000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_events_org_mode_resource_created"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX "ix_events_org_mode_resource_created" ON "events" ("organization_id", "livemode", "resource", "created_at", "id")`,
    );
  }
}
