import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../../database/column-types';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';

/**
 * One POST of an event to an endpoint, as the deliveries list shows it: newest first, by endpoint
 * alone, with an event, or with an outcome (one index each).
 */
@Entity({ name: 'webhook_attempts' })
@Index('ix_webhook_attempts_endpoint_created', ['endpointId', 'createdAt', 'id'])
@Index('ix_webhook_attempts_endpoint_event_created', ['endpointId', 'eventId', 'createdAt', 'id'])
@Index('ix_webhook_attempts_endpoint_succeeded_created', [
  'endpointId',
  'succeeded',
  'createdAt',
  'id',
])
@Index('ix_webhook_attempts_delivery', ['deliveryId'])
export class WebhookAttempt {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'delivery_id', type: 'varchar', length: 48 })
  deliveryId: string;

  @ManyToOne(() => WebhookDelivery, { nullable: false, onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'delivery_id',
    foreignKeyConstraintName: 'webhook_attempts_delivery_id_fkey',
  })
  delivery?: WebhookDelivery;

  @Column({ name: 'endpoint_id', type: 'varchar', length: 48 })
  endpointId: string;

  @ManyToOne(() => WebhookEndpoint, { nullable: false })
  @JoinColumn({
    name: 'endpoint_id',
    foreignKeyConstraintName: 'webhook_attempts_endpoint_id_fkey',
  })
  endpoint?: WebhookEndpoint;

  @Column({ name: 'event_id', type: 'varchar', length: 48 })
  eventId: string;

  /** 1 for the first attempt of this event to this endpoint. */
  @Column({ type: 'integer' })
  attempt: number;

  @Column({ type: 'boolean' })
  succeeded: boolean;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs: number;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error: string | null;

  /** When the next attempt is due; null after a success or the last attempt. */
  @TimestampColumn('next_retry_at', { nullable: true })
  nextRetryAt: Date | null;

  @TimestampColumn('created_at')
  createdAt: Date;
}
