import { ApiHideProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import {
  IsDescription,
  IsName,
  IsOptionalNotNull,
  NotAllowed,
} from '../../common/validation/decorators';

const createInstead = 'create a new billable metric instead';

/** Every field is optional; an empty body changes nothing. */
export class UpdateBillableMetricDto {
  /** A new name: 1-200 characters, not blank; `null` is rejected. */
  @ApiPropertyOptional({ example: 'Completion tokens', minLength: 1, maxLength: 200 })
  @IsOptionalNotNull()
  @IsName()
  name?: string;

  /** A new description (at most 2,000 characters); `null` or `""` removes it. */
  @ApiPropertyOptional({ example: 'Tokens produced by completions', nullable: true })
  @IsOptional()
  @IsDescription()
  description?: string | null;

  /** A new unit: 1-200 characters, not blank; `null` is rejected. */
  @ApiPropertyOptional({ example: 'tokens', minLength: 1, maxLength: 200 })
  @IsOptionalNotNull()
  @IsName()
  unit?: string;

  @ApiHideProperty()
  @NotAllowed(`productId never changes: ${createInstead} for the other product`)
  productId?: unknown;

  @ApiHideProperty()
  @NotAllowed(`merchantId never changes: ${createInstead}`)
  merchantId?: unknown;

  @ApiHideProperty()
  @NotAllowed(`aggregation never changes, so past usage keeps its meaning: ${createInstead}`)
  aggregation?: unknown;

  @ApiHideProperty()
  @NotAllowed(`valueProperty never changes, so past usage keeps its meaning: ${createInstead}`)
  valueProperty?: unknown;

  @ApiHideProperty()
  @NotAllowed(`eventType never changes, so past usage keeps its meaning: ${createInstead}`)
  eventType?: unknown;
}
