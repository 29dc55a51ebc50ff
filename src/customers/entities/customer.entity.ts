import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Organization } from '../../auth/entities/organization.entity';
import { TestClock } from './test-clock.entity';
import { Metadata } from '../../common/metadata';
import { JsonColumn, TimestampColumn } from '../../database/column-types';

/** A postal address; `country` is an ISO 3166-1 alpha-2 code, the other fields text or null. */
export interface Address {
  line1: string | null;
  line2: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  country: string;
}

/**
 * Who a merchant bills (docs/api.md §5.8). `merchantId` in the API is the organization. A
 * deleted customer keeps its row (its invoices stay readable) with `deletedAt` set.
 */
@Entity({ name: 'customers' })
@Index('ix_customers_org_mode_live', ['organizationId', 'livemode', 'createdAt', 'id'], {
  where: '"deleted_at" IS NULL',
})
@Index('ix_customers_org_mode_email', ['organizationId', 'livemode', 'email'], {
  where: '"deleted_at" IS NULL',
})
@Index('ux_customers_org_mode_external_id', ['organizationId', 'livemode', 'externalId'], {
  unique: true,
  where: '"deleted_at" IS NULL AND "external_id" IS NOT NULL',
})
@Index('ix_customers_test_clock', ['testClockId'], { where: '"deleted_at" IS NULL' })
export class Customer {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @Column({ type: 'boolean' })
  livemode: boolean;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({
    name: 'organization_id',
    foreignKeyConstraintName: 'customers_organization_id_fkey',
  })
  organization?: Organization;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 254 })
  email: string;

  @Column({ name: 'external_id', type: 'varchar', length: 200, nullable: true })
  externalId: string | null;

  @JsonColumn({ nullable: true })
  address: Address | null;

  @Column({ name: 'tax_id', type: 'varchar', length: 50, nullable: true })
  taxId: string | null;

  @Column({ name: 'test_clock_id', type: 'varchar', length: 48, nullable: true })
  testClockId: string | null;

  @ManyToOne(() => TestClock, { nullable: true })
  @JoinColumn({ name: 'test_clock_id', foreignKeyConstraintName: 'customers_test_clock_id_fkey' })
  testClock?: TestClock;

  @JsonColumn()
  metadata: Metadata;

  /**
   * How many of the customer's subscriptions are `active` or `pending`, kept by the
   * subscriptions module in the transaction of each change (CustomersService.countSubscriptions).
   * Never shown: a DELETE reads it (409 CUSTOMER_HAS_SUBSCRIPTIONS), and a subscription's write
   * locks this row through it, so two writes for one customer take turns.
   */
  @Column({ name: 'subscription_count', type: 'integer', default: 0 })
  subscriptionCount: number;

  @TimestampColumn('created_at')
  createdAt: Date;

  @TimestampColumn('updated_at')
  updatedAt: Date;

  @TimestampColumn('deleted_at', { nullable: true })
  deletedAt: Date | null;
}
