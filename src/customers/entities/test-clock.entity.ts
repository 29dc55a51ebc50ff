import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Organization } from '../../auth/entities/organization.entity';
import { TimestampColumn } from '../../database/column-types';

/**
 * A test clock (docs/api.md §5.9): test mode only. Its customers live on `frozenTime`, which
 * moves only when the clock is advanced.
 */
@Entity({ name: 'test_clocks' })
@Index('ix_test_clocks_org_mode_live', ['organizationId', 'livemode', 'createdAt', 'id'], {
  where: '"deleted_at" IS NULL',
})
export class TestClock {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @Column({ type: 'boolean' })
  livemode: boolean;

  @ManyToOne(() => Organization, { nullable: false })
  @JoinColumn({
    name: 'organization_id',
    foreignKeyConstraintName: 'test_clocks_organization_id_fkey',
  })
  organization?: Organization;

  @Column({ type: 'varchar', length: 200, nullable: true })
  name: string | null;

  @TimestampColumn('frozen_time')
  frozenTime: Date;

  @TimestampColumn('created_at')
  createdAt: Date;

  @TimestampColumn('updated_at')
  updatedAt: Date;

  @TimestampColumn('deleted_at', { nullable: true })
  deletedAt: Date | null;
}
