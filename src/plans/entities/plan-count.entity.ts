import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The `total` of GET /v0/plans without counting rows: for each organization, mode, product and state
 * (live or deleted), the number of plans, kept by the transaction that creates or deletes a
 * plan. A list's total is the sum of a few of these rows, however many plans there are. Writes
 * go to slot 0; rows of other slots, written when a count was spread over 16, are summed with it
 * (a slot may be negative, the sum never is).
 */
@Entity({ name: 'plan_counts' })
export class PlanCount {
  @PrimaryColumn({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  /** The mode of the product, and so of its plans (docs/api.md §2). */
  @PrimaryColumn({ type: 'boolean' })
  livemode: boolean;

  @PrimaryColumn({ name: 'product_id', type: 'varchar', length: 48 })
  productId: string;

  /** 0: live plans; 1: deleted plans. */
  @PrimaryColumn({ type: 'smallint' })
  deleted: number;

  @PrimaryColumn({ type: 'smallint' })
  slot: number;

  @Column({ type: 'integer' })
  plans: number;
}
