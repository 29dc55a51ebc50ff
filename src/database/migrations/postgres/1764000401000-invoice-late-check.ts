import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When the billing run looks again for late usage of an ended subscription (docs/api.md §5.12):
 * held by the subscription's last issued invoice, moved forward by each look and each lease.
 */
export class InvoiceLateCheck1764000401000 implements MigrationInterface {
  name = 'InvoiceLateCheck1764000401000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "invoices" ADD COLUMN "late_check_at" timestamptz(3)`);
    await q.query(`CREATE INDEX "ix_invoices_late_check" ON "invoices" ("late_check_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_invoices_late_check"`);
    await q.query(`ALTER TABLE "invoices" DROP COLUMN "late_check_at"`);
  }
}
