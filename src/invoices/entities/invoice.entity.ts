import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Organization } from '../../auth/entities/organization.entity';
import { JsonColumn, TimestampColumn } from '../../database/column-types';

export const INVOICE_STATUSES = ['draft', 'issued', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** The customer as the invoice bills it: kept on the invoice, so the document never changes. */
export interface BilledCustomer {
  name: string;
  email: string;
  address: {
    line1: string | null;
    line2: string | null;
    city: string | null;
    state: string | null;
    postalCode: string | null;
    country: string;
  } | null;
}

/**
 * What a customer owes for one period of one subscription (docs/api.md §5.12). The database
 * refuses a second invoice for one subscription and period start (ux_invoices_subscription_period).
 * A draft is issued when its grace ends (`graceEndsAt`, on the customer's clock).
 */
@Entity({ name: 'invoices' })
@Index('ux_invoices_subscription_period', ['subscriptionId', 'periodStart'], {
  unique: true,
})
@Index('ix_invoices_org_mode_created', ['organizationId', 'livemode', 'createdAt', 'id'])
@Index('ix_invoices_issue_due', ['issueDueAt'])
@Index('ix_invoices_clock_grace', ['testClockId', 'graceEndsAt'])
@Index('ix_invoices_late_check', ['lateCheckAt'])
export class Invoice {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @Column({ type: 'boolean' })
  livemode: boolean;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({
    name: 'organization_id',
    foreignKeyConstraintName: 'invoices_organization_id_fkey',
  })
  organization?: Organization;

  @Column({ name: 'customer_id', type: 'varchar', length: 48 })
  customerId: string;

  @Column({ name: 'subscription_id', type: 'varchar', length: 48 })
  subscriptionId: string;

  @Column({ name: 'plan_id', type: 'varchar', length: 48 })
  planId: string;

  /** `INV-000001`…, given at issue; null while draft. */
  @Column({ type: 'varchar', length: 20, nullable: true })
  number: string | null;

  @Column({ type: 'varchar', length: 10 })
  status: InvoiceStatus;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  @TimestampColumn('period_start')
  periodStart: Date;

  @TimestampColumn('period_end')
  periodEnd: Date;

  /** Money as decimal strings with the currency's digits. */
  @Column({ type: 'varchar', length: 48 })
  subtotal: string;

  @Column({ name: 'tax_behavior', type: 'varchar', length: 10 })
  taxBehavior: 'exclusive' | 'inclusive';

  @Column({ name: 'tax_rate', type: 'varchar', length: 20 })
  taxRate: string;

  @Column({ name: 'tax_amount', type: 'varchar', length: 48 })
  taxAmount: string;

  @Column({ type: 'varchar', length: 48 })
  total: string;

  @JsonColumn({ name: 'customer' })
  customer: BilledCustomer;

  /** The customer's test clock (docs/api.md §5.9), whose `advance` issues this invoice; else null. */
  @Column({ name: 'test_clock_id', type: 'varchar', length: 48, nullable: true })
  testClockId: string | null;

  /** When the grace ends and a draft is issued, on the customer's clock: periodEnd + the grace. */
  @TimestampColumn('grace_ends_at')
  graceEndsAt: Date;

  /**
   * When the billing run's poller issues this draft, in real time: graceEndsAt, moved forward by
   * each lease; null once issued and for invoices on a test clock (its `advance` issues them).
   */
  @TimestampColumn('issue_due_at', { nullable: true })
  issueDueAt: Date | null;

  /**
   * When the billing run looks for late usage of the ended subscription this issued invoice is
   * the last of (docs/api.md §5.12), on the customer's clock; moved forward by each look and each
   * lease; null otherwise.
   */
  @TimestampColumn('late_check_at', { nullable: true })
  lateCheckAt: Date | null;

  @TimestampColumn('issued_at', { nullable: true })
  issuedAt: Date | null;

  @TimestampColumn('paid_at', { nullable: true })
  paidAt: Date | null;

  @TimestampColumn('voided_at', { nullable: true })
  voidedAt: Date | null;

  @Column({ name: 'payment_reference', type: 'varchar', length: 200, nullable: true })
  paymentReference: string | null;

  @TimestampColumn('created_at')
  createdAt: Date;

  @TimestampColumn('updated_at')
  updatedAt: Date;
}
