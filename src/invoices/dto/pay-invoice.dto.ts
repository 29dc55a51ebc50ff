import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, Length, Matches } from 'class-validator';

export class PayInvoiceDto {
  /** When the invoice was paid (ISO 8601 UTC); defaults to now on the customer's clock. */
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true })
  @Matches(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/, {
    message: 'must be an ISO 8601 UTC timestamp such as "2026-01-31T12:00:00.000Z"',
  })
  @ApiPropertyOptional({ example: '2026-02-03T09:30:00.000Z' })
  paidAt?: string;

  /** Your reference for the payment (a bank transfer's id), 1-200 characters, or null. */
  @IsOptional()
  @Length(1, 200)
  @ApiPropertyOptional({ type: String, nullable: true, example: 'TRX-20260203-0042' })
  reference?: string | null;
}
