import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Organization } from '../../auth/entities/organization.entity';
import { Metadata } from '../../common/metadata';
import { JsonColumn, TimestampColumn, LivemodeColumn } from '../../database/column-types';

/** What a merchant sells (docs/api.md §5.1). `merchantId` in the API is the organization. */
@Entity({ name: 'products' })
@Index('ix_products_org_mode_created', ['organizationId', 'livemode', 'createdAt', 'id'])
export class Product {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @LivemodeColumn()
  livemode: boolean;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({
    name: 'organization_id',
    foreignKeyConstraintName: 'products_organization_id_fkey',
  })
  organization?: Organization;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 2000, nullable: true })
  description: string | null;

  @JsonColumn()
  metadata: Metadata;

  @TimestampColumn('created_at')
  createdAt: Date;

  @TimestampColumn('updated_at')
  updatedAt: Date;
}
