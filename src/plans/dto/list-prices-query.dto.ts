import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { ListQueryDto } from '../../common/dto/list-query.dto';
import { IsIdShape, ToBoolean } from '../../common/validation/decorators';

export class ListPricesQueryDto extends ListQueryDto {
  /** Only prices of this billable metric. */
  @IsOptional()
  @IsIdShape('bm', 'a billable metric')
  billableMetricId?: string;

  /** Only prices in this plan. */
  @IsOptional()
  @IsIdShape('plan', 'a plan')
  planId?: string;

  /** `true` to list deleted prices too (left out by default). */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  @ApiPropertyOptional()
  includeDeleted: boolean = false;
}
