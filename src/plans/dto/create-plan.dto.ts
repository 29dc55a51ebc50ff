import { IsMerchantId } from '../../common/merchant';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  ValidateNested,
} from 'class-validator';
import { IsCurrencyCode } from '../../common/iso';
import {
  IsDescription,
  IsName,
  IsOptionalNotNull,
  idPattern,
} from '../../common/validation/decorators';
import { BILLING_INTERVALS, BillingInterval } from '../entities/plan.entity';
import { TaxDto } from './tax.dto';

/** At most this many prices in one plan. */
export const MAX_PLAN_PRICES = 100;

export class CreatePlanDto {
  /** Plan name, 1-200 characters. */
  @IsName()
  @ApiProperty({ example: 'Pro' })
  name: string;

  /** Name shown on invoices, 1-200 characters; defaults to `name`. */
  @IsOptionalNotNull()
  @IsName()
  @ApiPropertyOptional({ example: 'Pro plan (monthly)' })
  invoiceDisplayName?: string;

  /** Free text, at most 2,000 characters. */
  @IsOptional()
  @IsDescription()
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Usage-based API access' })
  description?: string | null;

  /** The merchant: your organization's id, the default; another organization's id is a 403. */
  @IsOptionalNotNull()
  @IsMerchantId()
  @ApiPropertyOptional({ example: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  merchantId?: string;

  /** The product this plan sells, one of your organization's; never changes. */
  @IsString()
  @ApiProperty({ example: 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC', pattern: idPattern('prod').source })
  productId: string;

  /** How often the plan bills. */
  @IsString()
  @IsIn(BILLING_INTERVALS)
  @ApiProperty({ enum: BILLING_INTERVALS, example: 'monthly' })
  billingInterval: BillingInterval;

  /** ISO 4217 code in upper case, default `USD`; never changes. */
  @IsOptionalNotNull()
  @IsString()
  @IsCurrencyCode()
  @ApiPropertyOptional({ example: 'USD', default: 'USD' })
  currency?: string;

  /** Tax settings; keys left out take their defaults. */
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => TaxDto)
  @ApiPropertyOptional({ type: TaxDto })
  tax?: TaxDto;

  /**
   * Ids of free prices of your organization, each for a different billable metric of the
   * product; the plan lists them in this order. At most 100.
   */
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_PLAN_PRICES)
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', pattern: idPattern('price').source },
    maxItems: MAX_PLAN_PRICES,
    uniqueItems: true,
    example: ['price_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
  })
  prices?: unknown[];
}
