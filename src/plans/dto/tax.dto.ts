import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsObject, IsOptional, IsString, ValidateBy, ValidateNested } from 'class-validator';
import { compareDecimals, fractionDigits, isDecimalString } from '../../common/money/decimal';
import { IsDecimalString, IsName, IsOptionalNotNull } from '../../common/validation/decorators';
import { TAX_BEHAVIORS, TaxBehavior } from '../entities/plan.entity';

/**
 * What every bad rate is told, whatever made it bad: a JSON number (8.25), a string that is no
 * decimal ("1e-5"), or a decimal out of range ("100.5"). The generic decimal message would send a
 * client who sent 8.25 to a rule (18 integer digits) that is not the one a tax rate follows.
 */
export const TAX_RATE_MESSAGE =
  'must be a percentage from "0" to "100" with at most 4 decimals, as a string such as "8.25"';

/** The pattern of isTaxRate, for the OpenAPI document: 0-100, at most 4 decimals. */
export const TAX_RATE_PATTERN = '^(100(\\.0{1,4})?|[1-9]?[0-9](\\.[0-9]{1,4})?)$';

/**
 * The range part of a tax rate: 0 to 100 with at most 4 decimals. A value that is not a decimal
 * string at all passes here and fails IsDecimalString instead, so each bad rate gets exactly one
 * error code.
 */
function IsTaxRateRange(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isTaxRate',
      validator: {
        validate: (value: unknown) =>
          !isDecimalString(value) ||
          (fractionDigits(value) <= 4 && compareDecimals(value, '100') <= 0),
        defaultMessage: () => TAX_RATE_MESSAGE,
      },
    },
    { context: { code: 'out_of_range' } },
  );
}

/** Tax settings of a plan; keys left out keep their default (on create) or value (on PATCH). */
export class TaxDto {
  /** `exclusive`: tax is added on top of prices (default); `inclusive`: prices include tax. */
  @IsOptionalNotNull()
  @IsString()
  @IsIn(TAX_BEHAVIORS)
  @ApiPropertyOptional({ enum: TAX_BEHAVIORS, example: 'exclusive' })
  behavior?: TaxBehavior;

  /** A tax code for your tax engine, 1-50 characters, or null for none (the default). */
  @IsOptional()
  @IsName(50)
  @ApiPropertyOptional({ type: String, nullable: true, example: 'txcd_10103001' })
  code?: string | null;

  /** Tax rate in percent, a decimal string from "0" (the default) to "100", at most 4 decimals. */
  @IsOptionalNotNull()
  @IsDecimalString({ message: TAX_RATE_MESSAGE })
  @IsTaxRateRange()
  @ApiPropertyOptional({ example: '8.25', pattern: TAX_RATE_PATTERN })
  rate?: string;
}

/** A plan's `tax` object, on create and on update (how each treats keys left out differs). */
export function IsTax(): PropertyDecorator {
  return applyDecorators(
    IsOptionalNotNull(),
    IsObject(),
    ValidateNested(),
    Type(() => TaxDto),
    ApiPropertyOptional({ type: TaxDto }),
  );
}
