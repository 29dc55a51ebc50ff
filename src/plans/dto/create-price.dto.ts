import { ApiHideProperty, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsIn, IsObject, IsString } from 'class-validator';
import {
  IsName,
  IsOptionalNotNull,
  NotAllowed,
  idPattern,
} from '../../common/validation/decorators';
import { PAYMENT_TERMS, PRICE_MODELS, PriceModel, PaymentTerm } from '../price-properties';
import { PRICE_PROPERTIES_MODELS } from './price-properties.dto';

export const PRICE_PROPERTIES_SCHEMA = {
  oneOf: PRICE_PROPERTIES_MODELS.map((m) => ({ $ref: getSchemaPath(m) })),
  description:
    'By model: standard {unitPrice}; dynamic {minPrice, maxPrice}; volume {default, parameters: ' +
    '{function: "linear", gradient, min, max}}; package {packageSize, packagePrice}; graduated ' +
    '{tiers: [{upTo, unitPrice, flatPrice}]}; percentage {percentage, minCharge, maxCharge}. ' +
    'Every amount is a decimal string; extra keys are rejected.',
  example: { unitPrice: '0.25' },
};

export class CreatePriceDto {
  /** The billable metric this price applies to, one of your organization's. */
  @IsString()
  @ApiProperty({ example: 'bm_01JD3Y2Q6J8C4N1V9W5X7Z0ABC', pattern: idPattern('bm').source })
  billableMetricId: string;

  /** The pricing model; it decides the shape of `properties` and never changes. */
  @IsString()
  @IsIn(PRICE_MODELS)
  @ApiProperty({ enum: PRICE_MODELS, example: 'standard' })
  model: PriceModel;

  /** Name shown on invoices, 1-200 characters. */
  @IsName()
  @ApiProperty({ example: 'API calls' })
  invoiceDisplayName: string;

  @IsObject()
  @ApiProperty(PRICE_PROPERTIES_SCHEMA)
  // `object`, not Record<string, unknown>: the plugin would document a Record as open to any key.
  properties: object;

  /** When usage is billed: always `in_arrears`, after the period that measured it. */
  @IsOptionalNotNull()
  @IsString()
  @IsIn(PAYMENT_TERMS)
  @ApiPropertyOptional({ enum: PAYMENT_TERMS, example: 'in_arrears' })
  paymentTerm?: PaymentTerm;

  @ApiHideProperty()
  @NotAllowed('is set by the plan: list this price in prices of POST or PATCH /v0/plans')
  planId?: never;
}
