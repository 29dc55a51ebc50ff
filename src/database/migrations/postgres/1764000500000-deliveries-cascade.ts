import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A webhook delivery goes with its event, and an attempt with its delivery (ON DELETE CASCADE):
 * the events' retention sweep deletes expired events, and the foreign keys delete what refers to
 * them, so that the sweep calls no other module first.
 */
export class DeliveriesCascade1764000500000 implements MigrationInterface {
  name = 'DeliveriesCascade1764000500000';

  async up(q: QueryRunner): Promise<void> {
    await setOnDelete(q, ' ON DELETE CASCADE');
  }

  async down(q: QueryRunner): Promise<void> {
    await setOnDelete(q, '');
  }
}

async function setOnDelete(q: QueryRunner, onDelete: string): Promise<void> {
  for (const [table, column, parent] of [
    ['webhook_deliveries', 'event_id', 'events'],
    ['webhook_attempts', 'delivery_id', 'webhook_deliveries'],
  ]) {
    const name = `${table}_${column}_fkey`;
    await q.query(
      `ALTER TABLE "${table}" DROP CONSTRAINT "${name}", ADD CONSTRAINT "${name}" FOREIGN KEY ("${column}") REFERENCES "${parent}" ("id")${onDelete}`,
    );
  }
}
