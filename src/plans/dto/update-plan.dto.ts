import { ApiHideProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import {
  IsDecimalString,
  IsDescription,
  IsName,
  IsOptionalNotNull,
  NotAllowed,
} from '../../common/validation/decorators';
import { BILLING_INTERVALS, BillingInterval } from '../entities/plan.entity';
import { IsPlanPrices } from './create-plan.dto';
import { IsTax, TaxDto } from './tax.dto';

/** Every field optional; fields left out keep their value. */
export class UpdatePlanDto {
  /** Plan name, 1-200 characters. */
  @IsOptionalNotNull()
  @IsName()
  @ApiPropertyOptional({ example: 'Pro' })
  name?: string;

  /** Name shown on invoices, 1-200 characters. */
  @IsOptionalNotNull()
  @IsName()
  @ApiPropertyOptional({ example: 'Pro plan (monthly)' })
  invoiceDisplayName?: string;

  /** Free text, at most 2,000 characters; null clears it. */
  @IsOptional()
  @IsDescription()
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Our most popular plan' })
  description?: string | null;

  @IsOptionalNotNull()
  @IsString()
  @IsIn(BILLING_INTERVALS)
  @ApiPropertyOptional({ enum: BILLING_INTERVALS, example: 'yearly' })
  billingInterval?: BillingInterval;

  /** Merged key by key: keys left out keep their value; `code: null` clears the code. */
  @IsTax()
  tax?: TaxDto;

  /** An amount charged every billing period, in arrears, prorated for a partial period; null removes it. */
  @IsOptional()
  @IsDecimalString()
  @ApiPropertyOptional({ type: String, nullable: true, example: '49.00' })
  fixedFee?: string | null;

  /**
   * The new full price list, in order, with the same rules as on create. Prices left out go
   * back to being free (planId null); `[]` empties the plan.
   */
  @IsPlanPrices()
  prices?: unknown[];

  @ApiHideProperty()
  @NotAllowed('never changes; create a new plan for another merchant')
  merchantId?: never;

  @ApiHideProperty()
  @NotAllowed('never changes; create a new plan for another product')
  productId?: never;

  @ApiHideProperty()
  @NotAllowed('never changes; create a new plan in the other currency')
  currency?: never;
}
