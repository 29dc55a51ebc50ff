import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../../database/column-types';

/** A tenant: every API key and every resource belongs to exactly one organization. */
@Entity({ name: 'organizations' })
export class Organization {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @TimestampColumn('created_at')
  createdAt: Date;

  @TimestampColumn('updated_at')
  updatedAt: Date;
}
