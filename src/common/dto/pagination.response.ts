import { ApiProperty } from '@nestjs/swagger';

/** Where a page sits in a list (docs/api.md §4). */
export class PaginationResponse {
  /** The page size asked for (1-100, default 10). */
  @ApiProperty({ example: 10 })
  limit: number;

  /** How many items were skipped. */
  @ApiProperty({ example: 0 })
  offset: number;

  /** How many items match the filters, across all pages. */
  @ApiProperty({ example: 1 })
  total: number;
}
