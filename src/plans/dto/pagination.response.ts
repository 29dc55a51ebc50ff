import { ApiProperty } from '@nestjs/swagger';

/** The `pagination` block of every list (API.md section 4). */
export class PaginationResponse {
  @ApiProperty({ example: 10 })
  limit: number;

  @ApiProperty({ example: 0 })
  offset: number;

  /** How many items match the filters, on every page. */
  @ApiProperty({ example: 42 })
  total: number;
}
