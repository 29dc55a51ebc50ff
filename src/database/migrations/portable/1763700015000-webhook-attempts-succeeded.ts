import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The deliveries list's `succeeded` filter (docs/api.md §5.7) as an index search: an endpoint's
 * attempts of one outcome, newest first, without reading the others
 * (test/webhooks/query-plans.e2e-spec.ts). The same statement on both databases.
 */
export class WebhookAttemptsSucceeded1763700015000 implements MigrationInterface {
  name = 'WebhookAttemptsSucceeded1763700015000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX "ix_webhook_attempts_endpoint_succeeded_created" ON "webhook_attempts" ("endpoint_id", "succeeded", "created_at", "id")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_webhook_attempts_endpoint_succeeded_created"`);
  }
}
