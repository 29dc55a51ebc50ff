import { ApiProperty } from '@nestjs/swagger';
import {
  PAYMENT_TERMS,
  PRICE_MODELS,
  PaymentTerm,
  PriceModel,
  PriceProperties,
  canonicalProperties,
} from '../price-properties';
import { Price } from '../entities/price.entity';
import { PRICE_PROPERTIES_SCHEMA } from './create-price.dto';
import { PaginationResponse } from '../../common/dto/pagination.response';

export class PriceResponse {
  @ApiProperty({ example: 'price_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  id: string;

  /** Always `price`. */
  @ApiProperty({ enum: ['price'] })
  object: 'price';

  /** True in live mode, false in test mode (the mode of the API key that created it). */
  @ApiProperty({ example: false })
  livemode: boolean;

  @ApiProperty({ example: 'bm_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  billableMetricId: string;

  @ApiProperty({ enum: PRICE_MODELS, example: 'standard' })
  model: PriceModel;

  /** Name shown on invoices. */
  @ApiProperty({ example: 'API calls' })
  invoiceDisplayName: string;

  @ApiProperty(PRICE_PROPERTIES_SCHEMA)
  properties: PriceProperties;

  /** When usage is billed: always `in_arrears`, after the period that measured it. */
  @ApiProperty({ enum: PAYMENT_TERMS, example: 'in_arrears' })
  paymentTerm: PaymentTerm;

  /** The plan that holds this price; null while the price is free. */
  @ApiProperty({ type: String, nullable: true, example: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  planId: string | null;

  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  updatedAt: string;

  /** When the price was deleted; null while it is live. */
  @ApiProperty({ type: String, nullable: true, example: null })
  deletedAt: string | null;
}

export class PriceListResponse {
  @ApiProperty({ type: [PriceResponse] })
  data: PriceResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}

/** The API view of a price (docs/api.md §5.3). */
export function toPriceResponse(p: Price): PriceResponse {
  return {
    id: p.id,
    object: 'price',
    livemode: p.livemode,
    billableMetricId: p.billableMetricId,
    model: p.model,
    invoiceDisplayName: p.invoiceDisplayName,
    properties: canonicalProperties(p.model, p.properties),
    paymentTerm: 'in_arrears',
    planId: p.planId,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
    deletedAt: p.deletedAt ? p.deletedAt.toISOString() : null,
  };
}
