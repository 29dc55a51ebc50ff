import { ApiHideProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsString } from 'class-validator';
import { PAYMENT_TERMS, PaymentTerm } from '../price-properties';
import { IsName, IsOptionalNotNull, NotAllowed } from '../../common/validation/decorators';
import { PRICE_PROPERTIES_SCHEMA } from './create-price.dto';

export class UpdatePriceDto {
  /** Name shown on invoices, 1-200 characters. */
  @IsOptionalNotNull()
  @IsName()
  @ApiPropertyOptional({ example: 'API calls (EU)' })
  invoiceDisplayName?: string;

  @IsOptionalNotNull()
  @IsObject()
  @ApiPropertyOptional({
    ...PRICE_PROPERTIES_SCHEMA,
    description:
      'Replaces the properties as a whole (no merge); validated against the price model. ' +
      PRICE_PROPERTIES_SCHEMA.description,
  })
  properties?: object;

  /** When usage is billed: always `in_arrears`; sending it changes nothing. */
  @IsOptionalNotNull()
  @IsString()
  @IsIn(PAYMENT_TERMS)
  @ApiPropertyOptional({ enum: PAYMENT_TERMS, example: 'in_arrears' })
  paymentTerm?: PaymentTerm;

  @ApiHideProperty()
  @NotAllowed('never changes; create a new price with the other model')
  model?: never;

  @ApiHideProperty()
  @NotAllowed('never changes; create a new price for the other billable metric')
  billableMetricId?: never;

  @ApiHideProperty()
  @NotAllowed('is set by the plan: change prices with PATCH /v0/plans/{id}')
  planId?: never;
}
