import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The retention sweep finds old events by their id (a ULID starts with its creation time, so the
 * primary key orders events by age) and no longer needs an index on `created_at`: one index less
 * to write for every event recorded. The same statements on both databases.
 */
export class EventsSweptById1763700016000 implements MigrationInterface {
  name = 'EventsSweptById1763700016000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_events_created"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "ix_events_created" ON "events" ("created_at")`);
  }
}
