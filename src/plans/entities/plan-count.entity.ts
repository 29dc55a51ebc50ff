import { Column, Entity, PrimaryColumn } from 'typeorm';

/** How many slots each (organization, mode, product, state) count is spread over. */
export const PLAN_COUNT_SLOTS = 16;

/**
 * The `total` of GET /v0/plans without counting rows: for each organization, mode, product and state
 * (live or deleted), the number of plans, kept by the transaction that creates or deletes a
 * plan. A list's total is the sum of a few of these rows, however many plans there are. Each
 * count is spread over PLAN_COUNT_SLOTS rows, a random one taking each change, so concurrent
 * creates of one product on PostgreSQL do not all queue behind one row lock; a slot may go
 * negative, the sum never does.
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
