import { ApiProperty } from '@nestjs/swagger';
import {
  BILLING_INTERVALS,
  BillingInterval,
  Plan,
  TAX_BEHAVIORS,
  TaxBehavior,
} from '../entities/plan.entity';
import { Price } from '../entities/price.entity';
import { PaginationResponse } from '../../common/dto/pagination.response';
import { PriceResponse, toPriceResponse } from './price.response';

/** Tax settings; the response always shows all three keys. */
export class TaxResponse {
  @ApiProperty({ enum: TAX_BEHAVIORS, example: 'exclusive' })
  behavior: TaxBehavior;

  /** Tax code, or null for none. */
  @ApiProperty({ type: String, nullable: true, example: 'txcd_10103001' })
  code: string | null;

  /** Tax rate in percent, a decimal string. */
  @ApiProperty({ example: '8.25' })
  rate: string;
}

export class PlanResponse {
  @ApiProperty({ example: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  id: string;

  /** Always `plan`. */
  @ApiProperty({ enum: ['plan'] })
  object: 'plan';

  /** True in live mode, false in test mode (the mode of the API key that created it). */
  @ApiProperty({ example: false })
  livemode: boolean;

  @ApiProperty({ example: 'Pro' })
  name: string;

  /** Name shown on invoices. */
  @ApiProperty({ example: 'Pro plan (monthly)' })
  invoiceDisplayName: string;

  @ApiProperty({ type: String, nullable: true, example: 'Usage-based API access' })
  description: string | null;

  @ApiProperty({ enum: BILLING_INTERVALS, example: 'monthly' })
  billingInterval: BillingInterval;

  @ApiProperty({ example: 'USD' })
  currency: string;

  /** The organization that owns the plan. */
  @ApiProperty({ example: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  merchantId: string;

  @ApiProperty({ example: 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  productId: string;

  @ApiProperty({ type: TaxResponse })
  tax: TaxResponse;

  /** An amount charged every billing period, in arrears (a decimal string), or null. */
  @ApiProperty({ type: String, nullable: true, example: '49.00' })
  fixedFee: string | null;

  /** The plan's prices in full, in the order the plan lists them. */
  @ApiProperty({ type: [PriceResponse] })
  prices: PriceResponse[];

  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  updatedAt: string;

  /** When the plan was deleted; null while it is live. */
  @ApiProperty({ type: String, nullable: true, example: null })
  deletedAt: string | null;
}

export class PlanListResponse {
  @ApiProperty({ type: [PlanResponse] })
  data: PlanResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}

/** The API view of a plan (the seed's section 2.1) with its prices in full, in plan order. */
export function toPlanResponse(plan: Plan, prices: Price[]): PlanResponse {
  return {
    id: plan.id,
    object: 'plan',
    livemode: plan.livemode,
    name: plan.name,
    invoiceDisplayName: plan.invoiceDisplayName,
    description: plan.description,
    billingInterval: plan.billingInterval,
    currency: plan.currency,
    merchantId: plan.organizationId,
    productId: plan.productId,
    tax: { behavior: plan.taxBehavior, code: plan.taxCode, rate: plan.taxRate },
    fixedFee: plan.fixedFee,
    prices: prices.map(toPriceResponse),
    createdAt: plan.createdAt.toISOString(),
    updatedAt: plan.updatedAt.toISOString(),
    deletedAt: plan.deletedAt ? plan.deletedAt.toISOString() : null,
  };
}
