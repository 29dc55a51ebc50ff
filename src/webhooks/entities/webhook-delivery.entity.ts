import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../../database/column-types';
import { EventRecord } from '../../events/entities/event.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event to one endpoint: the dispatcher's durable state. Queued in the transaction that
 * records the event; `nextAttemptAt` is when it is due (null once it succeeded, was given up or
 * canceled). A dispatcher claims a due delivery by moving `nextAttemptAt` a lease ahead under a
 * `leaseToken` of its own, so a process that dies during an attempt leaves it due again after
 * the lease, and a late finish of an expired claim changes nothing.
 */
@Entity({ name: 'webhook_deliveries' })
@Index('ux_webhook_deliveries_event_endpoint', ['eventId', 'endpointId'], { unique: true })
@Index('ix_webhook_deliveries_due', ['nextAttemptAt'], { where: '"next_attempt_at" IS NOT NULL' })
@Index('ix_webhook_deliveries_endpoint_due', ['endpointId', 'nextAttemptAt'], {
  where: '"next_attempt_at" IS NOT NULL',
})
@Check(
  'webhook_deliveries_status_check',
  `"status" IN ('pending', 'succeeded', 'failed', 'canceled')`,
)
export class WebhookDelivery {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'endpoint_id', type: 'varchar', length: 48 })
  endpointId: string;

  @ManyToOne(() => WebhookEndpoint, { nullable: false })
  @JoinColumn({
    name: 'endpoint_id',
    foreignKeyConstraintName: 'webhook_deliveries_endpoint_id_fkey',
  })
  endpoint?: WebhookEndpoint;

  @Column({ name: 'event_id', type: 'varchar', length: 48 })
  eventId: string;

  /** Deleted with its event (the retention sweep), its attempts with it. */
  @ManyToOne(() => EventRecord, { nullable: false, onDelete: 'CASCADE' })
  @JoinColumn({ name: 'event_id', foreignKeyConstraintName: 'webhook_deliveries_event_id_fkey' })
  event?: EventRecord;

  @Column({ type: 'varchar', length: 10 })
  status: DeliveryStatus;

  /** Attempts made so far. */
  @Column({ type: 'integer' })
  attempts: number;

  @TimestampColumn('next_attempt_at', { nullable: true })
  nextAttemptAt: Date | null;

  @Column({ name: 'lease_token', type: 'varchar', length: 48, nullable: true })
  leaseToken: string | null;

  @TimestampColumn('created_at')
  createdAt: Date;

  @TimestampColumn('updated_at')
  updatedAt: Date;
}
