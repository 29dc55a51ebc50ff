import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Organization } from '../../auth/entities/organization.entity';
import { JsonColumn, TimestampColumn, LivemodeColumn } from '../../database/column-types';

export type IdempotencyState = 'in_progress' | 'complete';

/**
 * The first response to a request sent with an Idempotency-Key, kept per organization and key
 * for 24 hours. The row exists from the moment a request claims the key: `in_progress` while it
 * runs (until `lockedUntil`), then `complete` with the response that a retry gets back.
 */
@Entity({ name: 'idempotency_records' })
@Index('ux_idempotency_records_org_mode_key', ['organizationId', 'livemode', 'idempotencyKey'], {
  unique: true,
})
@Index('ix_idempotency_records_expires', ['expiresAt'])
export class IdempotencyRecord {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @LivemodeColumn()
  livemode: boolean;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({
    name: 'organization_id',
    foreignKeyConstraintName: 'idempotency_records_organization_id_fkey',
  })
  organization?: Organization;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 255 })
  idempotencyKey: string;

  @Column({ name: 'request_method', type: 'varchar', length: 10 })
  requestMethod: string;

  /** The path of the route the request reached (routePath): never a query string. */
  @Column({ name: 'request_path', type: 'text' })
  requestPath: string;

  /**
   * HMAC-SHA256 (key derived from ENCRYPTION_KEY) of the method, route path, query and canonical
   * body: a retry must match it. Keyed, so a reader of the database cannot test guesses of a body.
   */
  @Column({ name: 'request_hash', type: 'varchar', length: 64 })
  requestHash: string;

  /** The X-Request-Id of the request that ran; replays send it as Original-Request-Id. */
  @Column({ name: 'request_id', type: 'varchar', length: 128 })
  requestId: string;

  @Column({ type: 'varchar', length: 12 })
  state: IdempotencyState;

  /** While `in_progress`: after this instant the request is presumed dead and a retry may run. */
  @TimestampColumn('locked_until', { nullable: true })
  lockedUntil: Date | null;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus: number | null;

  /** The response headers a replay repeats (Content-Type, Location). */
  @JsonColumn({ name: 'response_headers', nullable: true })
  responseHeaders: Record<string, string> | null;

  /** The response body exactly as it was sent; null when there was none (204). */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;

  @TimestampColumn('created_at')
  createdAt: Date;

  @TimestampColumn('expires_at')
  expiresAt: Date;
}
