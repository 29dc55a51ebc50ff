import { IsMerchantId } from '../../common/merchant';
import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { IsCurrencyCode } from '../../common/iso';
import {
  IsDecimalString,
  IsDescription,
  IsName,
  IsOptionalNotNull,
  idPattern,
} from '../../common/validation/decorators';
import { BILLING_INTERVALS, BillingInterval } from '../entities/plan.entity';
import { IsTax, TaxDto } from './tax.dto';

/** At most this many prices in one plan. */
export const MAX_PLAN_PRICES = 100;

/**
 * A plan's `prices`, on create and on update: a list of at most MAX_PLAN_PRICES price ids. What
 * each id must be (a free price of the plan's product, each for another metric) is the
 * service's to check.
 */
export function IsPlanPrices(): PropertyDecorator {
  return applyDecorators(
    IsOptionalNotNull(),
    IsArray(),
    ArrayMaxSize(MAX_PLAN_PRICES),
    ApiPropertyOptional({
      type: 'array',
      items: { type: 'string', pattern: idPattern('price').source },
      maxItems: MAX_PLAN_PRICES,
      uniqueItems: true,
      // Without one, Swagger UI makes up an id from the pattern, in no id's form.
      example: ['price_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    }),
  );
}

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
  @IsTax()
  tax?: TaxDto;

  /** An amount charged every billing period, in arrears, prorated for a partial period; or null. */
  @IsOptional()
  @IsDecimalString()
  @ApiPropertyOptional({ type: String, nullable: true, example: '49.00' })
  fixedFee?: string | null;

  /**
   * Ids of free prices of your organization, each for a different billable metric of the
   * product; the plan lists them in this order. At most 100.
   */
  @IsPlanPrices()
  prices?: unknown[];
}
