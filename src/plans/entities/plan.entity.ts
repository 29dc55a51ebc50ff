import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Organization } from '../../auth/entities/organization.entity';
import { Product } from '../../catalog/entities/product.entity';
import { TimestampColumn, LivemodeColumn } from '../../database/column-types';
import { ListIndexes } from './list-indexes';

export const BILLING_INTERVALS = ['weekly', 'monthly', 'quarterly', 'yearly'] as const;
export type BillingInterval = (typeof BILLING_INTERVALS)[number];

export const TAX_BEHAVIORS = ['exclusive', 'inclusive'] as const;
export type TaxBehavior = (typeof TAX_BEHAVIORS)[number];

/**
 * A rate card (docs/api.md §5.4): one product, an interval, a currency, tax, and the prices
 * that point at it through `prices.plan_id` (Price.plan). `merchantId` in the API is the organization.
 */
@Entity({ name: 'plans' })
@ListIndexes('ix_plans_org_mode', [])
@ListIndexes('ix_plans_org_mode_product', ['productId'])
export class Plan {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @LivemodeColumn()
  livemode: boolean;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({ name: 'organization_id', foreignKeyConstraintName: 'plans_organization_id_fkey' })
  organization?: Organization;

  @Column({ name: 'product_id', type: 'varchar', length: 48 })
  productId: string;

  @ManyToOne(() => Product, { nullable: false })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'plans_product_id_fkey' })
  product?: Product;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ name: 'invoice_display_name', type: 'varchar', length: 200 })
  invoiceDisplayName: string;

  @Column({ type: 'varchar', length: 2000, nullable: true })
  description: string | null;

  @Column({ name: 'billing_interval', type: 'varchar', length: 20 })
  billingInterval: BillingInterval;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  @Column({ name: 'tax_behavior', type: 'varchar', length: 10 })
  taxBehavior: TaxBehavior;

  @Column({ name: 'tax_code', type: 'varchar', length: 50, nullable: true })
  taxCode: string | null;

  /** A decimal string (percent), kept as text so it comes back exactly as sent. */
  @Column({ name: 'tax_rate', type: 'varchar', length: 20 })
  taxRate: string;

  /** An amount charged every billing period (docs/api.md §5.4): a decimal string, or null. */
  @Column({ name: 'fixed_fee', type: 'varchar', length: 40, nullable: true })
  fixedFee: string | null;

  /**
   * How many `active` or `pending` subscriptions the plan has, kept by the subscriptions module
   * in the transaction of each change (PlansService.countSubscriptions). Never shown: while it
   * is not 0 the plan's billing terms and its prices are frozen (409 PLAN_IN_USE).
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
