import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Organization } from '../../auth/entities/organization.entity';
import { Metadata } from '../../common/metadata';
import { JsonColumn, TimestampColumn, LivemodeColumn } from '../../database/column-types';
import { AccountStatus } from '../account-status';

export const ACCOUNT_HOLDER_TYPES = ['individual', 'company'] as const;
export type AccountHolderType = (typeof ACCOUNT_HOLDER_TYPES)[number];

/**
 * Where an organization is paid out (docs/api.md §5.5). The account number is stored only
 * encrypted; `last4` and a keyed `fingerprint` serve responses and duplicate checks. Deleting
 * sets `deletedAt`: a deleted account is gone from the API, and its fingerprint no longer counts.
 */
@Entity({ name: 'external_bank_accounts' })
// The list shows live accounts only: a partial index for it and one for each filter (migration
// 1763700006000).
@Index(
  'ix_external_bank_accounts_org_mode_live',
  ['organizationId', 'livemode', 'createdAt', 'id'],
  { where: '"deleted_at" IS NULL' },
)
@Index(
  'ix_external_bank_accounts_org_mode_status_live',
  ['organizationId', 'livemode', 'status', 'createdAt', 'id'],
  { where: '"deleted_at" IS NULL' },
)
@Index(
  'ix_external_bank_accounts_org_mode_currency_live',
  ['organizationId', 'livemode', 'currency', 'createdAt', 'id'],
  { where: '"deleted_at" IS NULL' },
)
@Index(
  'ix_external_bank_accounts_org_mode_country_live',
  ['organizationId', 'livemode', 'countryCode', 'createdAt', 'id'],
  { where: '"deleted_at" IS NULL' },
)
@Index(
  'ux_external_bank_accounts_org_mode_fingerprint',
  ['organizationId', 'livemode', 'fingerprint'],
  { unique: true, where: '"deleted_at" IS NULL' },
)
// The operator's queue: pending accounts of a mode, oldest first, across organizations and for
// one (migration 1763700013000). Partial on pending, so that no list finds them cheaper.
@Index('ix_external_bank_accounts_mode_pending', ['livemode', 'createdAt', 'id'], {
  where: `"status" = 'pending' AND "deleted_at" IS NULL`,
})
@Index(
  'ix_external_bank_accounts_org_mode_pending',
  ['organizationId', 'livemode', 'createdAt', 'id'],
  { where: `"status" = 'pending' AND "deleted_at" IS NULL` },
)
// The verification worker's claim: due automatic verifications, soonest first.
@Index('ix_external_bank_accounts_verification_due', ['verificationDueAt'], {
  where: '"verification_due_at" IS NOT NULL',
})
// The CHECKs of migration 1763700003000, under the names PostgreSQL gave them (and SQLite since
// migration 1763700005000).
@Check(
  'external_bank_accounts_account_holder_type_check',
  `"account_holder_type" IN ('individual', 'company')`,
)
@Check('external_bank_accounts_status_check', `"status" IN ('pending', 'verified', 'errored')`)
export class ExternalBankAccount {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @LivemodeColumn()
  livemode: boolean;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({
    name: 'organization_id',
    foreignKeyConstraintName: 'external_bank_accounts_organization_id_fkey',
  })
  organization?: Organization;

  @Column({ name: 'country_code', type: 'varchar', length: 2 })
  countryCode: string;

  @Column({ name: 'bank_name', type: 'varchar', length: 200 })
  bankName: string;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  /** AES-256-GCM, `v1:<nonce>:<ciphertext>:<tag>` (see AccountNumberVault). Never returned. */
  @Column({ name: 'account_number_encrypted', type: 'text' })
  accountNumberEncrypted: string;

  @Column({ type: 'varchar', length: 4 })
  last4: string;

  /** HMAC-SHA256 (hex) of country, routing number and account number: finds duplicates. */
  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  @Column({ name: 'routing_number', type: 'varchar', length: 34 })
  routingNumber: string;

  @Column({ name: 'account_holder_name', type: 'varchar', length: 200 })
  accountHolderName: string;

  @Column({ name: 'account_holder_type', type: 'varchar', length: 10 })
  accountHolderType: AccountHolderType;

  @Column({ type: 'varchar', length: 10 })
  status: AccountStatus;

  @Column({ name: 'status_reason', type: 'varchar', length: 500, nullable: true })
  statusReason: string | null;

  @JsonColumn()
  metadata: Metadata;

  /**
   * How many times the account was submitted for verification (1 at creation, one more for each
   * PATCH status "new" that resubmits it). An outcome is written only for the submission it was
   * decided for, so an older verification never overwrites a newer submission.
   */
  @Column({ name: 'verification_submission', type: 'integer', default: 1 })
  verificationSubmission: number;

  /**
   * When the verification worker should decide the pending submission (an automatic verifier:
   * the test-mode sandbox); moved a lease ahead while an instance decides it. Null when nothing
   * is due: decided, deleted, or waiting for an operator (live mode).
   */
  @TimestampColumn('verification_due_at', { nullable: true })
  verificationDueAt: Date | null;

  @TimestampColumn('created_at')
  createdAt: Date;

  @TimestampColumn('updated_at')
  updatedAt: Date;

  @TimestampColumn('deleted_at', { nullable: true })
  deletedAt: Date | null;
}
