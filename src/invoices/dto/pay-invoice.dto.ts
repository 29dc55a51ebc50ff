import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { IsInstant } from '../../common/validation/instant';

export class PayInvoiceDto {
  /** When the invoice was paid (ISO 8601 UTC); defaults to now on the customer's clock. */
  @IsOptional()
  @IsInstant()
  @ApiPropertyOptional({ example: '2026-02-03T09:30:00.000Z' })
  paidAt?: string;

  /** Your reference for the payment (a bank transfer's id), 1-200 characters, or null. */
  @IsOptional()
  @IsString()
  @Length(1, 200)
  @ApiPropertyOptional({ type: String, nullable: true, example: 'TRX-20260203-0042' })
  reference?: string | null;
}
