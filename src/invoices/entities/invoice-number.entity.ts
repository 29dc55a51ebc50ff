import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The last invoice number given per organization and mode: the issuing transaction locks this
 * row, so numbers are consecutive with no gap and no repeat, however many instances issue.
 */
@Entity({ name: 'invoice_numbers' })
export class InvoiceNumber {
  @PrimaryColumn({ name: 'organization_id', type: 'varchar', length: 48 })
  organizationId: string;

  @PrimaryColumn({ type: 'boolean' })
  livemode: boolean;

  @Column({ name: 'last_number', type: 'integer' })
  lastNumber: number;
}
