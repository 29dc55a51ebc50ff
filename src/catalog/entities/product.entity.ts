import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { Metadata } from '../../common/metadata';
import { JSON_COLUMN, TIMESTAMP } from '../../database/column-types';

/** What a merchant sells (API.md section 5.1). `merchantId` in the API is the organization. */
@Entity({ name: 'products' })
@Index('ix_products_org_created', ['organizationId', 'createdAt', 'id'])
export class Product {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 2000, nullable: true })
  description: string | null;

  @Column({ type: JSON_COLUMN })
  metadata: Metadata;

  @Column({ name: 'created_at', type: TIMESTAMP })
  createdAt: Date;

  @Column({ name: 'updated_at', type: TIMESTAMP })
  updatedAt: Date;
}
