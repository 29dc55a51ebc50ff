import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import {
  IsDescription,
  IsName,
  IsOptionalNotNull,
  idPattern,
} from '../../common/validation/decorators';
import { AGGREGATIONS, Aggregation } from '../entities/billable-metric.entity';
import { IsMerchantId } from '../../common/merchant';

/** A JSON path into an event's payload, such as `$.tokens` or `$.usage.input_tokens`. */
export const VALUE_PROPERTY_PATTERN = /^\$\.[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

/** Sent with COUNT, a valueProperty would be silently ignored: refuse it instead. */
function NotWithCount(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'notWithCount',
      validator: {
        validate: (_value, args) =>
          (args?.object as CreateBillableMetricDto).aggregation !== 'COUNT',
        defaultMessage: () =>
          'must be omitted when aggregation is COUNT: COUNT counts events and reads no property',
      },
    },
    { context: { code: 'field_not_allowed' } },
  );
}

export class CreateBillableMetricDto {
  /** The product whose usage this metric measures: a product of your organization. */
  @ApiProperty({ example: 'prod_01JD3Y7K2M5N8P1Q4R6S9T0VWX', pattern: idPattern('prod').source })
  @IsString()
  productId: string;

  /** What the metric is called: 1-200 characters, not blank. */
  @ApiProperty({ example: 'Tokens', minLength: 1, maxLength: 200 })
  @IsName()
  name: string;

  /** The unit one measured quantity is counted in: 1-200 characters, not blank. */
  @ApiProperty({ example: 'token', minLength: 1, maxLength: 200 })
  @IsName()
  unit: string;

  /** How events are turned into a quantity over a billing period. Never changes. */
  @ApiProperty({ enum: AGGREGATIONS, example: 'SUM' })
  @IsString()
  @IsIn(AGGREGATIONS, { message: `must be one of ${AGGREGATIONS.join(', ')}` })
  aggregation: Aggregation;

  /**
   * The JSON path of the number to aggregate, such as `$.tokens`: required for every aggregation
   * but COUNT, and refused with COUNT. At most 200 characters. Never changes.
   */
  @ApiPropertyOptional({
    example: '$.tokens',
    pattern: VALUE_PROPERTY_PATTERN.source,
    maxLength: 200,
    nullable: true,
  })
  // Required by every known aggregation but COUNT, which counts events; checked whenever sent.
  @ValidateIf(
    (dto: CreateBillableMetricDto, value) =>
      (dto.aggregation !== 'COUNT' && AGGREGATIONS.includes(dto.aggregation)) ||
      (value !== undefined && value !== null),
  )
  @IsString()
  @MaxLength(200, { message: 'must be at most 200 characters' })
  @Matches(VALUE_PROPERTY_PATTERN, {
    message: 'must be a JSON path such as "$.tokens" or "$.usage.input_tokens"',
  })
  @NotWithCount()
  valueProperty?: string | null;

  /** Free text, at most 2,000 characters; `null` or `""` for none. */
  @ApiPropertyOptional({ example: 'Tokens consumed by completions', nullable: true })
  @IsOptional()
  @IsDescription()
  description?: string | null;

  /** The type of usage event this metric reads, such as `llm.completion`: 1-200 characters, not blank. Never changes. */
  @ApiPropertyOptional({ example: 'llm.completion', minLength: 1, maxLength: 200, nullable: true })
  @IsOptional()
  @IsName()
  eventType?: string | null;

  /** The organization that sells the product: defaults to yours, and may only be yours (403). */
  @ApiPropertyOptional({ example: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  @IsOptionalNotNull()
  @IsMerchantId()
  merchantId?: string;
}
