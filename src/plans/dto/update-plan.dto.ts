import { ApiHideProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  ValidateNested,
  IsString,
} from 'class-validator';
import {
  IsDescription,
  IsName,
  IsOptionalNotNull,
  NotAllowed,
  idPattern,
} from '../../common/validation/decorators';
import { BILLING_INTERVALS, BillingInterval } from '../entities/plan.entity';
import { MAX_PLAN_PRICES } from './create-plan.dto';
import { TaxDto } from './tax.dto';

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
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => TaxDto)
  @ApiPropertyOptional({ type: TaxDto })
  tax?: TaxDto;

  /**
   * The new full price list, in order, with the same rules as on create. Prices left out go
   * back to being free (planId null); `[]` empties the plan.
   */
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_PLAN_PRICES)
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', pattern: idPattern('price').source },
    maxItems: MAX_PLAN_PRICES,
    uniqueItems: true,
    // Without one, Swagger UI makes up an id from the pattern, in no id's form.
    example: ['price_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
  })
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
