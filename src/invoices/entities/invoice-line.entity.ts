import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { JsonColumn, TimestampColumn } from '../../database/column-types';
import { Invoice } from './invoice.entity';

export const INVOICE_LINE_TYPES = ['fixedFee', 'usage', 'lateUsage'] as const;
export type InvoiceLineType = (typeof INVOICE_LINE_TYPES)[number];

/**
 * One line of an invoice, in `position` order. A usage line keeps its own copy of the price it
 * applied (`priceProperties`, with `model`): what a customer was charged never changes behind
 * an invoice, whatever later happens to the price.
 */
@Entity({ name: 'invoice_lines' })
@Index('ix_invoice_lines_invoice', ['invoiceId', 'position'])
export class InvoiceLine {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ name: 'invoice_id', type: 'varchar', length: 48 })
  invoiceId: string;

  @ManyToOne(() => Invoice, { nullable: false })
  @JoinColumn({ name: 'invoice_id', foreignKeyConstraintName: 'invoice_lines_invoice_id_fkey' })
  invoice?: Invoice;

  @Column({ type: 'integer' })
  position: number;

  @Column({ type: 'varchar', length: 10 })
  type: InvoiceLineType;

  @Column({ type: 'varchar', length: 200 })
  description: string;

  @Column({ name: 'price_id', type: 'varchar', length: 48, nullable: true })
  priceId: string | null;

  @Column({ name: 'billable_metric_id', type: 'varchar', length: 48, nullable: true })
  billableMetricId: string | null;

  @Column({ type: 'varchar', length: 20, nullable: true })
  model: string | null;

  /** The price's properties as this line applied them; null for a fixed fee. */
  @JsonColumn({ name: 'price_properties', nullable: true })
  priceProperties: object | null;

  /** The aggregation, exactly (a late line: its change); null for a fixed fee. */
  @Column({ type: 'varchar', length: 80, nullable: true })
  quantity: string | null;

  @Column({ type: 'varchar', length: 48 })
  amount: string;

  @TimestampColumn('period_start')
  periodStart: Date;

  @TimestampColumn('period_end')
  periodEnd: Date;
}
