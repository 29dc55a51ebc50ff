import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bank accounts are verified by the service (docs/api.md §5.5, docs/verification.md): the state
 * of verification lives in the account's row, so it survives restarts and is shared by every
 * instance.
 *
 * - `verification_submission`: how many times the account was submitted (1 for the rows already
 *   stored: their creation). An outcome is written only for the submission it decided.
 * - `verification_due_at`: when the worker should decide the pending submission; null when
 *   nothing is due (decided, deleted, or waiting for an operator). Test-mode accounts already
 *   pending are due at once, so the sandbox decides them after the upgrade; live ones wait for
 *   an operator, as every live account does.
 * - `ix_external_bank_accounts_verification_due`: the worker's claim, soonest first.
 * - `ix_external_bank_accounts_mode_pending`: the operator's queue of live pending accounts of
 *   every organization, oldest first (test/database/list-indexes.e2e-spec.ts proves both). It
 *   holds pending accounts only, so a list of one organization filtered by another status never
 *   finds it cheaper than the organization's own index.
 * - `ix_external_bank_accounts_org_mode_pending`: the same queue for one organization
 *   (`--organization`). The status index of the lists answers it too, but where most of an
 *   organization's accounts are pending PostgreSQL reads its live accounts instead and drops the
 *   others; this one holds nothing else.
 *
 * The statements are the same on both databases but for the spelling of the timestamp type and
 * of `false`.
 */
export class Verification1763700013000 implements MigrationInterface {
  name = 'Verification1763700013000';

  async up(q: QueryRunner): Promise<void> {
    const postgres = q.connection.options.type === 'postgres';
    const timestamp = postgres ? 'timestamptz(3)' : 'datetime';
    const test = postgres ? 'false' : '0';
    await q.query(
      `ALTER TABLE "external_bank_accounts" ADD COLUMN "verification_submission" integer NOT NULL DEFAULT 1`,
    );
    await q.query(
      `ALTER TABLE "external_bank_accounts" ADD COLUMN "verification_due_at" ${timestamp}`,
    );
    await q.query(
      `UPDATE "external_bank_accounts" SET "verification_due_at" = "updated_at"
        WHERE "status" = 'pending' AND "livemode" = ${test} AND "deleted_at" IS NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_external_bank_accounts_verification_due" ON "external_bank_accounts" ("verification_due_at") WHERE "verification_due_at" IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_external_bank_accounts_mode_pending" ON "external_bank_accounts" ("livemode", "created_at", "id") WHERE "status" = 'pending' AND "deleted_at" IS NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_external_bank_accounts_org_mode_pending" ON "external_bank_accounts" ("organization_id", "livemode", "created_at", "id") WHERE "status" = 'pending' AND "deleted_at" IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_external_bank_accounts_org_mode_pending"`);
    await q.query(`DROP INDEX "ix_external_bank_accounts_mode_pending"`);
    await q.query(`DROP INDEX "ix_external_bank_accounts_verification_due"`);
    await q.query(`ALTER TABLE "external_bank_accounts" DROP COLUMN "verification_due_at"`);
    await q.query(`ALTER TABLE "external_bank_accounts" DROP COLUMN "verification_submission"`);
  }
}
