import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Organization } from '../../auth/entities/organization.entity';
import { Customer } from '../../customers/entities/customer.entity';
import { Metadata } from '../../common/metadata';
import { JsonColumn, TimestampColumn } from '../../database/column-types';
import { BillingInterval, Plan } from '../../plans/entities/plan.entity';

export const SUBSCRIPTION_STATUSES = ['pending', 'active', 'terminated'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/**
 * A customer on a plan (docs/api.md §5.10). Its billing periods are computed from
 * `billingAnchor` (billing-periods.ts); `currentPeriodStart`/`End` hold the period open now.
 *
 * `nextActionAt` says when the subscription next needs the service: a pending one's start, an
 * active one's period end or scheduled end, whichever is first; null once terminated. The
 * real-time job claims due rows of customers on real time (`testClockId` null; the lease
 * moves it forward); a test clock's advance runs those of its customers.
 */
@Entity({ name: 'subscriptions' })
@Index('ix_subscriptions_org_mode_created', ['organizationId', 'livemode', 'createdAt', 'id'])
@Index('ix_subscriptions_customer', ['customerId', 'status'])
@Index('ix_subscriptions_plan', ['planId', 'status'])
@Index('ix_subscriptions_due', ['nextActionAt'], {
  where: '"next_action_at" IS NOT NULL AND "test_clock_id" IS NULL',
})
@Index('ix_subscriptions_clock_due', ['testClockId', 'nextActionAt'], {
  where: '"next_action_at" IS NOT NULL AND "test_clock_id" IS NOT NULL',
})
export class Subscription {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @Column({ type: 'boolean' })
  livemode: boolean;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({
    name: 'organization_id',
    foreignKeyConstraintName: 'subscriptions_organization_id_fkey',
  })
  organization?: Organization;

  @Column({ name: 'customer_id', type: 'varchar', length: 48 })
  customerId: string;

  @ManyToOne(() => Customer, { nullable: false })
  @JoinColumn({ name: 'customer_id', foreignKeyConstraintName: 'subscriptions_customer_id_fkey' })
  customer?: Customer;

  @Column({ name: 'plan_id', type: 'varchar', length: 48 })
  planId: string;

  @ManyToOne(() => Plan, { nullable: false })
  @JoinColumn({ name: 'plan_id', foreignKeyConstraintName: 'subscriptions_plan_id_fkey' })
  plan?: Plan;

  /** The customer's test clock (copied: a customer never changes clock), or null. */
  @Column({ name: 'test_clock_id', type: 'varchar', length: 48, nullable: true })
  testClockId: string | null;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  /** The plan's interval (a plan in use never changes it; a plan change copies the new one). */
  @Column({ name: 'billing_interval', type: 'varchar', length: 20 })
  billingInterval: BillingInterval;

  @Column({ type: 'varchar', length: 10 })
  status: SubscriptionStatus;

  @TimestampColumn('started_at')
  startedAt: Date;

  @TimestampColumn('billing_anchor')
  billingAnchor: Date;

  @TimestampColumn('current_period_start', { nullable: true })
  currentPeriodStart: Date | null;

  @TimestampColumn('current_period_end', { nullable: true })
  currentPeriodEnd: Date | null;

  @TimestampColumn('ending_at', { nullable: true })
  endingAt: Date | null;

  @TimestampColumn('terminated_at', { nullable: true })
  terminatedAt: Date | null;

  @Column({ name: 'termination_reason', type: 'varchar', length: 200, nullable: true })
  terminationReason: string | null;

  @JsonColumn()
  metadata: Metadata;

  @TimestampColumn('next_action_at', { nullable: true })
  nextActionAt: Date | null;

  @TimestampColumn('created_at')
  createdAt: Date;

  @TimestampColumn('updated_at')
  updatedAt: Date;
}
