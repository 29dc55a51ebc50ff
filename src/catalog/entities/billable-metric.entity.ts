import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Organization } from '../../auth/entities/organization.entity';
import { TimestampColumn, LivemodeColumn } from '../../database/column-types';
import { Product } from './product.entity';

export const AGGREGATIONS = ['COUNT', 'SUM', 'MAX', 'UNIQUE_COUNT', 'LATEST'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

/** What usage is measured for a product (docs/api.md §5.2). */
@Entity({ name: 'billable_metrics' })
@Index('ix_billable_metrics_org_mode_created', ['organizationId', 'livemode', 'createdAt', 'id'])
@Index('ix_billable_metrics_org_mode_product', [
  'organizationId',
  'livemode',
  'productId',
  'createdAt',
  'id',
])
export class BillableMetric {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @LivemodeColumn()
  livemode: boolean;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({
    name: 'organization_id',
    foreignKeyConstraintName: 'billable_metrics_organization_id_fkey',
  })
  organization?: Organization;

  @Column({ name: 'product_id', type: 'varchar', length: 48 })
  productId: string;

  @ManyToOne(() => Product, { nullable: false })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'billable_metrics_product_id_fkey' })
  product?: Product;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 2000, nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 200 })
  unit: string;

  @Column({ type: 'varchar', length: 20 })
  aggregation: Aggregation;

  /** A JSON path such as `$.tokens`; null only for COUNT. */
  @Column({ name: 'value_property', type: 'varchar', length: 200, nullable: true })
  valueProperty: string | null;

  @Column({ name: 'event_type', type: 'varchar', length: 200, nullable: true })
  eventType: string | null;

  @TimestampColumn('created_at')
  createdAt: Date;

  @TimestampColumn('updated_at')
  updatedAt: Date;
}
