import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { TIMESTAMP } from '../../database/column-types';

export const AGGREGATIONS = ['COUNT', 'SUM', 'MAX', 'UNIQUE_COUNT', 'LATEST'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

/** What usage is measured for a product (API.md section 5.2). */
@Entity({ name: 'billable_metrics' })
@Index('ix_billable_metrics_org_created', ['organizationId', 'createdAt', 'id'])
@Index('ix_billable_metrics_org_product', ['organizationId', 'productId', 'createdAt', 'id'])
export class BillableMetric {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @Column({ name: 'product_id', type: 'varchar', length: 48 })
  productId: string;

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

  @Column({ name: 'created_at', type: TIMESTAMP })
  createdAt: Date;

  @Column({ name: 'updated_at', type: TIMESTAMP })
  updatedAt: Date;
}
