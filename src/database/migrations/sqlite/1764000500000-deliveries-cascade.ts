import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A webhook delivery goes with its event, and an attempt with its delivery (ON DELETE CASCADE):
 * the events' retention sweep deletes expired events, and the foreign keys delete what refers to
 * them, so that the sweep calls no other module first.
 *
 * SQLite cannot change a foreign key: each table is built again from its stored definition with
 * the clause added (or taken away), with its rows and indexes, as in 1763700005000-named-constraints
 * (whose `rebuild` says why the rows wait in a temporary copy and the checks are deferred).
 * Undone, the attempts go first, so that dropping the deliveries table cascades to nothing.
 */
export class DeliveriesCascade1764000500000 implements MigrationInterface {
  name = 'DeliveriesCascade1764000500000';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, key] of KEYS) await rebuild(q, table, key, `${key} ON DELETE CASCADE`);
    await assertForeignKeys(q);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table, key] of [...KEYS].reverse()) {
      await rebuild(q, table, `${key} ON DELETE CASCADE`, key);
    }
    await assertForeignKeys(q);
  }
}

const KEYS = [
  ['webhook_deliveries', `FOREIGN KEY ("event_id") REFERENCES "events" ("id")`],
  ['webhook_attempts', `FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries" ("id")`],
] as const;

async function rebuild(q: QueryRunner, table: string, from: string, to: string): Promise<void> {
  const [{ sql }] = (await q.query(
    `SELECT "sql" FROM "sqlite_master" WHERE "type" = 'table' AND "name" = ?`,
    [table],
  )) as { sql: string }[];
  const indexes = (await q.query(
    `SELECT "sql" FROM "sqlite_master" WHERE "type" = 'index' AND "tbl_name" = ? AND "sql" IS NOT NULL`,
    [table],
  )) as { sql: string }[];
  // Both keys are followed by another constraint: the comma marks the end of the clause.
  if (!sql.includes(`${from},`)) throw new Error(`${table}: no "${from}," in its definition`);
  const copy = `"copy_of_${table}"`;
  await q.query(`PRAGMA defer_foreign_keys = ON`);
  await q.query(`CREATE TEMP TABLE ${copy} AS SELECT * FROM "${table}"`);
  await q.query(`DROP TABLE "${table}"`);
  await q.query(sql.replace(`${from},`, `${to},`));
  await q.query(`INSERT INTO "${table}" SELECT * FROM ${copy}`);
  await q.query(`DROP TABLE ${copy}`);
  for (const index of indexes) await q.query(index.sql);
}

async function assertForeignKeys(q: QueryRunner): Promise<void> {
  const broken = (await q.query(`PRAGMA foreign_key_check`)) as unknown[];
  if (broken.length > 0) throw new Error(`foreign keys broken: ${JSON.stringify(broken)}`);
}
