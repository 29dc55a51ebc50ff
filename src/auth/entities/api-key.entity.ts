import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TIMESTAMP } from '../../database/column-types';

/** An API key record. The key itself is never stored: only its SHA-256 and its last four characters. */
@Entity({ name: 'api_keys' })
export class ApiKey {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @Column({ name: 'key_hash', type: 'varchar', length: 64 })
  keyHash: string;

  /** `live` or `test`: the key's sk_live_ or sk_test_ prefix. */
  @Column({ type: 'varchar', length: 4 })
  mode: 'live' | 'test';

  @Column({ type: 'varchar', length: 4 })
  last4: string;

  @Column({ name: 'created_at', type: TIMESTAMP })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: TIMESTAMP, nullable: true })
  revokedAt: Date | null;
}
