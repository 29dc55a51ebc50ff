import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Organization } from '../../auth/entities/organization.entity';
import { Metadata } from '../../common/metadata';
import { JsonColumn, TimestampColumn } from '../../database/column-types';

export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

/**
 * The longest URL an endpoint may have (its column's length), counted as it is called: WHATWG
 * serialization percent-encodes characters such as `<`, `>` and `é`, so the URL stored can be
 * several times longer than the text sent.
 */
export const MAX_URL_LENGTH = 2048;

/**
 * Where an organization's events of one mode are pushed (docs/api.md §5.7). The signing
 * secrets are stored encrypted (SecretBox); after a rotation the previous one signs too until
 * `previousSecretExpiresAt`. `failingSince` is the first failed attempt since the last success:
 * an endpoint failing for WEBHOOK_DISABLE_AFTER_SECONDS is disabled.
 */
@Entity({ name: 'webhook_endpoints' })
@Index('ix_webhook_endpoints_org_mode_live', ['organizationId', 'livemode', 'createdAt', 'id'], {
  where: '"deleted_at" IS NULL',
})
@Index('ix_webhook_endpoints_next_delivery', ['nextDeliveryAt'], {
  where: '"next_delivery_at" IS NOT NULL',
})
@Check('webhook_endpoints_status_check', `"status" IN ('enabled', 'disabled')`)
export class WebhookEndpoint {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({
    name: 'organization_id',
    foreignKeyConstraintName: 'webhook_endpoints_organization_id_fkey',
  })
  organization?: Organization;

  @Column({ type: 'boolean' })
  livemode: boolean;

  @Column({ type: 'varchar', length: MAX_URL_LENGTH })
  url: string;

  @JsonColumn({ name: 'enabled_events' })
  enabledEvents: string[];

  @Column({ type: 'varchar', length: 2000, nullable: true })
  description: string | null;

  @JsonColumn()
  metadata: Metadata;

  @Column({ type: 'varchar', length: 8 })
  status: EndpointStatus;

  @Column({ name: 'secret_encrypted', type: 'text' })
  secretEncrypted: string;

  @Column({ name: 'previous_secret_encrypted', type: 'text', nullable: true })
  previousSecretEncrypted: string | null;

  @TimestampColumn('previous_secret_expires_at', { nullable: true })
  previousSecretExpiresAt: Date | null;

  @TimestampColumn('failing_since', { nullable: true })
  failingSince: Date | null;

  @TimestampColumn('created_at')
  createdAt: Date;

  @TimestampColumn('updated_at')
  updatedAt: Date;

  @TimestampColumn('deleted_at', { nullable: true })
  deletedAt: Date | null;

  /**
   * At or before the soonest due time of this endpoint's deliveries; null when it has none. The
   * delivery claim visits endpoints in this order (WebhookDeliveryJob).
   */
  @TimestampColumn('next_delivery_at', { nullable: true })
  nextDeliveryAt: Date | null;
}
