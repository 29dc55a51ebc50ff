import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook delivery as background work of the lease poller (docs/architecture.md):
 *
 * - `events.fan_out_at`: when the fan-out should queue the event's deliveries (its lease while it
 *   does); null once done. Events already stored were fanned out when they were recorded.
 * - `webhook_endpoints.next_delivery_at`: at or before the soonest due time of the endpoint's
 *   deliveries, null when it has none: the delivery claim takes endpoints in this order, a few
 *   deliveries each, so that one endpoint's or organization's backlog never hides another's.
 * - `ix_webhook_deliveries_endpoint_due` becomes (endpoint_id, next_attempt_at): an endpoint's
 *   oldest due deliveries are an index search.
 */
export class DeliveryQueues1764000000000 implements MigrationInterface {
  name = 'DeliveryQueues1764000000000';

  async up(q: QueryRunner): Promise<void> {
    const timestamp = q.connection.options.type === 'postgres' ? 'timestamptz(3)' : 'datetime';
    await q.query(`ALTER TABLE "events" ADD COLUMN "fan_out_at" ${timestamp}`);
    await q.query(
      `CREATE INDEX "ix_events_fan_out" ON "events" ("fan_out_at") WHERE "fan_out_at" IS NOT NULL`,
    );
    await q.query(`ALTER TABLE "webhook_endpoints" ADD COLUMN "next_delivery_at" ${timestamp}`);
    await q.query(
      `UPDATE "webhook_endpoints" SET "next_delivery_at" = (SELECT MIN("d"."next_attempt_at") FROM "webhook_deliveries" "d" WHERE "d"."endpoint_id" = "webhook_endpoints"."id" AND "d"."next_attempt_at" IS NOT NULL)`,
    );
    await q.query(
      `CREATE INDEX "ix_webhook_endpoints_next_delivery" ON "webhook_endpoints" ("next_delivery_at") WHERE "next_delivery_at" IS NOT NULL`,
    );
    await q.query(`DROP INDEX "ix_webhook_deliveries_endpoint_due"`);
    await q.query(
      `CREATE INDEX "ix_webhook_deliveries_endpoint_due" ON "webhook_deliveries" ("endpoint_id", "next_attempt_at") WHERE "next_attempt_at" IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_webhook_deliveries_endpoint_due"`);
    await q.query(
      `CREATE INDEX "ix_webhook_deliveries_endpoint_due" ON "webhook_deliveries" ("endpoint_id") WHERE "next_attempt_at" IS NOT NULL`,
    );
    await q.query(`DROP INDEX "ix_webhook_endpoints_next_delivery"`);
    await q.query(`ALTER TABLE "webhook_endpoints" DROP COLUMN "next_delivery_at"`);
    await q.query(`DROP INDEX "ix_events_fan_out"`);
    await q.query(`ALTER TABLE "events" DROP COLUMN "fan_out_at"`);
  }
}
