import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscriptions (docs/api.md §5.10), and what plans gain with them (§5.4):
 *
 * - `plans.fixed_fee`: a decimal string charged every period, or null.
 * - `plans.subscription_count`: the plan's active and pending subscriptions; while it is not 0
 *   the plan's billing terms and prices are frozen (409 PLAN_IN_USE).
 * - `subscriptions.next_action_at`: when the subscription next needs the service (a start, a
 *   period end, a scheduled end). `ix_subscriptions_due` is the real-time job's claim (customers
 *   on real time); `ix_subscriptions_clock_due` a test clock's advance.
 *
 * The statements are the same on both databases but for the spelling of the timestamp and JSON
 * types.
 */
export class Subscriptions1764000210000 implements MigrationInterface {
  name = 'Subscriptions1764000210000';

  async up(q: QueryRunner): Promise<void> {
    const postgres = q.connection.options.type === 'postgres';
    const timestamp = postgres ? 'timestamptz(3)' : 'datetime';
    const json = postgres ? 'jsonb' : 'text';
    await q.query(`ALTER TABLE "plans" ADD COLUMN "fixed_fee" varchar(40)`);
    await q.query(`ALTER TABLE "plans" ADD COLUMN "subscription_count" integer NOT NULL DEFAULT 0`);
    await q.query(`
      CREATE TABLE "subscriptions" (
        "id" varchar(48) PRIMARY KEY NOT NULL,
        "organization_id" varchar(48) NOT NULL,
        "livemode" boolean NOT NULL,
        "customer_id" varchar(48) NOT NULL,
        "plan_id" varchar(48) NOT NULL,
        "test_clock_id" varchar(48),
        "currency" varchar(3) NOT NULL,
        "billing_interval" varchar(20) NOT NULL,
        "status" varchar(10) NOT NULL,
        "started_at" ${timestamp} NOT NULL,
        "billing_anchor" ${timestamp} NOT NULL,
        "current_period_start" ${timestamp},
        "current_period_end" ${timestamp},
        "ending_at" ${timestamp},
        "terminated_at" ${timestamp},
        "termination_reason" varchar(200),
        "metadata" ${json} NOT NULL,
        "next_action_at" ${timestamp},
        "created_at" ${timestamp} NOT NULL,
        "updated_at" ${timestamp} NOT NULL,
        CONSTRAINT "subscriptions_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id"),
        CONSTRAINT "subscriptions_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers" ("id"),
        CONSTRAINT "subscriptions_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "plans" ("id"))`);
    await q.query(
      `CREATE INDEX "ix_subscriptions_org_mode_created" ON "subscriptions" ("organization_id", "livemode", "created_at", "id")`,
    );
    await q.query(
      `CREATE INDEX "ix_subscriptions_customer" ON "subscriptions" ("customer_id", "status")`,
    );
    await q.query(`CREATE INDEX "ix_subscriptions_plan" ON "subscriptions" ("plan_id", "status")`);
    await q.query(
      `CREATE INDEX "ix_subscriptions_due" ON "subscriptions" ("next_action_at") WHERE "next_action_at" IS NOT NULL AND "test_clock_id" IS NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_subscriptions_clock_due" ON "subscriptions" ("test_clock_id", "next_action_at") WHERE "next_action_at" IS NOT NULL AND "test_clock_id" IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "subscriptions"`);
    await q.query(`ALTER TABLE "plans" DROP COLUMN "subscription_count"`);
    await q.query(`ALTER TABLE "plans" DROP COLUMN "fixed_fee"`);
  }
}
