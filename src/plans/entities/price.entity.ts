import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Organization } from '../../auth/entities/organization.entity';
import { BillableMetric } from '../../catalog/entities/billable-metric.entity';
import { JsonColumn, TimestampColumn, LivemodeColumn } from '../../database/column-types';
import type { PriceModel, PriceProperties } from '../price-properties';
import { ListIndexes } from './list-indexes';
import { Plan } from './plan.entity';

/**
 * The cost of one billable metric (docs/api.md §5.3). It lives in at most one plan: `planId`
 * is null while the price is free, and `planPosition` is its index in that plan's price list.
 */
@Entity({ name: 'prices' })
@ListIndexes('ix_prices_org_mode', [])
@ListIndexes('ix_prices_org_mode_metric', ['billableMetricId'])
@ListIndexes('ix_prices_org_mode_plan', ['planId'])
// A plan's prices in order.
@Index('ix_prices_plan', ['planId', 'planPosition'])
export class Price {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @LivemodeColumn()
  livemode: boolean;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({ name: 'organization_id', foreignKeyConstraintName: 'prices_organization_id_fkey' })
  organization?: Organization;

  @Column({ name: 'billable_metric_id', type: 'varchar', length: 48 })
  billableMetricId: string;

  @ManyToOne(() => BillableMetric, { nullable: false })
  @JoinColumn({
    name: 'billable_metric_id',
    foreignKeyConstraintName: 'prices_billable_metric_id_fkey',
  })
  billableMetric?: BillableMetric;

  @Column({ name: 'plan_id', type: 'varchar', length: 48, nullable: true })
  planId: string | null;

  @ManyToOne(() => Plan, { nullable: true })
  @JoinColumn({ name: 'plan_id', foreignKeyConstraintName: 'prices_plan_id_fkey' })
  plan?: Plan;

  @Column({ name: 'plan_position', type: 'integer', nullable: true })
  planPosition: number | null;

  @Column({ type: 'varchar', length: 20 })
  model: PriceModel;

  @Column({ name: 'invoice_display_name', type: 'varchar', length: 200 })
  invoiceDisplayName: string;

  /** Every amount inside is a decimal string, so JSON text and jsonb both keep it exactly. */
  @JsonColumn()
  properties: PriceProperties;

  @TimestampColumn('created_at')
  createdAt: Date;

  @TimestampColumn('updated_at')
  updatedAt: Date;

  @TimestampColumn('deleted_at', { nullable: true })
  deletedAt: Date | null;
}
