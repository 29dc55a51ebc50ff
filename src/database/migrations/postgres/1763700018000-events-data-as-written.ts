import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An event's `data` as written: `json` keeps the text, so `data.object` comes back with its keys
 * in the order of the resource's view, as GET shows it (docs/api.md §5.6); `jsonb` gave them back
 * shortest first. Nothing queries inside `data`. PostgreSQL only: SQLite keeps JSON as text. The
 * events already stored keep jsonb's order (their text is gone); the table is rewritten once.
 */
export class EventsDataAsWritten1763700018000 implements MigrationInterface {
  name = 'EventsDataAsWritten1763700018000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "events" ALTER COLUMN "data" TYPE json USING "data"::json`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "events" ALTER COLUMN "data" TYPE jsonb USING "data"::jsonb`);
  }
}
