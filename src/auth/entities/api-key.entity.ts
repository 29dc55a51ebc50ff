import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../../database/column-types';
import { Organization } from './organization.entity';

/** An API key record. The key itself is never stored: only its SHA-256 and its last four characters. */
@Entity({ name: 'api_keys' })
@Index('ux_api_keys_key_hash', ['keyHash'], { unique: true })
@Index('ix_api_keys_organization', ['organizationId', 'createdAt'])
export class ApiKey {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({
    name: 'organization_id',
    foreignKeyConstraintName: 'api_keys_organization_id_fkey',
  })
  organization?: Organization;

  @Column({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash: string;

  /** `live` or `test`: the key's sk_live_ or sk_test_ prefix. */
  @Column({ type: 'varchar', length: 4 })
  mode: 'live' | 'test';

  @Column({ type: 'varchar', length: 4 })
  last4: string;

  @TimestampColumn('created_at')
  createdAt: Date;

  @TimestampColumn('revoked_at', { nullable: true })
  revokedAt: Date | null;
}
