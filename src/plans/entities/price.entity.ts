import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { JSON_COLUMN, TIMESTAMP } from '../../database/column-types';
import type { PriceModel, PriceProperties } from '../price-properties';
import { Plan } from './plan.entity';

/**
 * The cost of one billable metric (API.md section 5.3). It lives in at most one plan: `planId`
 * is null while the price is free, and `planPosition` is its index in that plan's price list.
 */
@Entity({ name: 'prices' })
@Index('ix_prices_org_created', ['organizationId', 'createdAt', 'id'])
@Index('ix_prices_plan', ['planId', 'planPosition'])
@Index('ix_prices_billable_metric', ['billableMetricId', 'createdAt', 'id'])
export class Price {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @Column({ name: 'billable_metric_id', type: 'varchar', length: 48 })
  billableMetricId: string;

  @Column({ name: 'plan_id', type: 'varchar', length: 48, nullable: true })
  planId: string | null;

  @ManyToOne(() => Plan, (plan) => plan.prices, { nullable: true })
  @JoinColumn({ name: 'plan_id' })
  plan?: Plan;

  @Column({ name: 'plan_position', type: 'integer', nullable: true })
  planPosition: number | null;

  @Column({ type: 'varchar', length: 20 })
  model: PriceModel;

  @Column({ name: 'invoice_display_name', type: 'varchar', length: 200 })
  invoiceDisplayName: string;

  /** Every amount inside is a decimal string, so JSON text and jsonb both keep it exactly. */
  @Column({ type: JSON_COLUMN })
  properties: PriceProperties;

  @Column({ name: 'created_at', type: TIMESTAMP })
  createdAt: Date;

  @Column({ name: 'updated_at', type: TIMESTAMP })
  updatedAt: Date;

  @Column({ name: 'deleted_at', type: TIMESTAMP, nullable: true })
  deletedAt: Date | null;
}
