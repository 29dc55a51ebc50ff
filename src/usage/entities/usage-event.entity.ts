import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Organization } from '../../auth/entities/organization.entity';
import { JsonTextColumn, TimestampColumn } from '../../database/column-types';

/**
 * One usage event as sent (docs/api.md §5.11); never changes once stored. The unique index makes
 * an idempotency key count once per organization and mode, forever; the aggregation reads the
 * (organization, mode, customer, type, timestamp) index, so a meter or an invoice line costs what
 * the customer's events in its range cost, whatever the table holds. The list reads the
 * (organization, mode, id) index: an id is a ULID, so newest first is id descending.
 */
@Entity({ name: 'usage_events' })
@Index('ux_usage_events_org_mode_key', ['organizationId', 'livemode', 'idempotencyKey'], {
  unique: true,
})
@Index('ix_usage_events_org_mode_customer_type_ts', [
  'organizationId',
  'livemode',
  'customerId',
  'type',
  'timestamp',
])
@Index('ix_usage_events_org_mode_id', ['organizationId', 'livemode', 'id'])
export class UsageEvent {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @Column({ type: 'boolean' })
  livemode: boolean;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({
    name: 'organization_id',
    foreignKeyConstraintName: 'usage_events_organization_id_fkey',
  })
  organization?: Organization;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 255 })
  idempotencyKey: string;

  @Column({ name: 'customer_id', type: 'varchar', length: 48 })
  customerId: string;

  @Column({ type: 'varchar', length: 100 })
  type: string;

  @TimestampColumn('timestamp')
  timestamp: Date;

  /** The event's `data`, keys in the order sent (json on PostgreSQL, text on SQLite). */
  @JsonTextColumn()
  data: Record<string, unknown>;

  @TimestampColumn('created_at')
  createdAt: Date;
}
