import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ToInteger } from '../validation/decorators';

/** `limit` and `offset` of every list (docs/api.md §4). Filters extend this class. */
export class ListQueryDto {
  /** How many items to return, 1-100. */
  @IsOptional()
  @ToInteger()
  @IsInt({ message: 'must be a whole number from 1 to 100' })
  @Min(1, { message: 'must be a whole number from 1 to 100' })
  @Max(100, { message: 'must be a whole number from 1 to 100' })
  // Optional (it has a default) and whole: the plugin reads `number = 10` as a required number.
  @ApiPropertyOptional({ type: 'integer' })
  limit: number = 10;

  /** How many items to skip, from 0. */
  @IsOptional()
  @ToInteger()
  @IsInt({ message: 'must be a whole number of at least 0' })
  @Min(0, { message: 'must be a whole number of at least 0' })
  @Max(1_000_000_000, { message: 'must be at most 1000000000' })
  @ApiPropertyOptional({ type: 'integer' })
  offset: number = 0;
}

export interface ListResponse<T> {
  data: T[];
  pagination: { limit: number; offset: number; total: number };
}

export function toListResponse<T>(data: T[], total: number, query: ListQueryDto): ListResponse<T> {
  return { data, pagination: { limit: query.limit, offset: query.offset, total } };
}
