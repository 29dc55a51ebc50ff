import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Organization } from '../../auth/entities/organization.entity';
import { JsonTextColumn, TimestampColumn } from '../../database/column-types';

/** What `data` holds: the resource after the change, and the old values of what changed. */
export interface EventData {
  object: Record<string, unknown>;
  previousAttributes: Record<string, unknown> | null;
}

/**
 * One recorded change (docs/api.md §5.6), written in the transaction of the change itself (a
 * transactional outbox). Lists read it newest first by organization and mode, optionally by exact
 * type: one index for each, so a page is an index search at any size. A resource's list
 * (`plan.*`) reads the type index once per type of the resource (EventsRepository.pageOfTypes).
 * The retention sweep reads the primary key: an id is a ULID, so it starts with the creation time.
 */
@Entity({ name: 'events' })
@Index('ix_events_org_mode_created', ['organizationId', 'livemode', 'createdAt', 'id'])
@Index('ix_events_org_mode_type_created', ['organizationId', 'livemode', 'type', 'createdAt', 'id'])
@Index('ix_events_fan_out', ['fanOutAt'], { where: '"fan_out_at" IS NOT NULL' })
export class EventRecord {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({ name: 'organization_id', foreignKeyConstraintName: 'events_organization_id_fkey' })
  organization?: Organization;

  @Column({ type: 'boolean' })
  livemode: boolean;

  @Column({ type: 'varchar', length: 64 })
  type: string;

  /**
   * The part of the type before the dot. Still written, no longer indexed nor read: the
   * `prefix.*` list reads the resource's types (migration 1763700017000); dropping the column
   * would rebuild the table on SQLite.
   */
  @Column({ type: 'varchar', length: 64 })
  resource: string;

  /** As recorded, keys in order (json on PostgreSQL, not jsonb: see JsonTextColumn). */
  @JsonTextColumn()
  data: EventData;

  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true })
  requestId: string | null;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 255, nullable: true })
  idempotencyKey: string | null;

  /** `apiKey`, `operator` or `system`. */
  @Column({ name: 'actor_type', type: 'varchar', length: 16 })
  actorType: string;

  @Column({ name: 'actor_id', type: 'varchar', length: 48, nullable: true })
  actorId: string | null;

  @TimestampColumn('created_at')
  createdAt: Date;

  /**
   * When the webhooks' fan-out should work out who receives this event (its lease while it does);
   * null once its deliveries are queued.
   */
  @TimestampColumn('fan_out_at', { nullable: true })
  fanOutAt: Date | null;
}
