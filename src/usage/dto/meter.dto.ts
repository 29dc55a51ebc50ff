import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsInstant } from '../../common/validation/instant';

/** `GET /v0/billableMetrics/{id}/meter` (docs/api.md §5.11). */
export class MeterQueryDto {
  /** The customer whose usage is read. */
  @IsString()
  @MaxLength(48)
  @ApiProperty({ example: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  customerId: string;

  /** Events with timestamp ≥ from. */
  @IsInstant()
  @ApiProperty({ example: '2026-01-01T00:00:00.000Z' })
  from: string;

  /** Events with timestamp < to; after from, at most one year after it. */
  @IsInstant()
  @ApiProperty({ example: '2026-02-01T00:00:00.000Z' })
  to: string;

  /** Also the value of each UTC hour or day in the range (the first and last cut to it). */
  @IsOptional()
  @IsIn(['hour', 'day'], { message: 'must be "hour" or "day"' })
  @ApiPropertyOptional({ enum: ['hour', 'day'] })
  windowSize?: 'hour' | 'day';
}

export class MeterWindowResponse {
  @ApiProperty({ example: '2026-01-01T00:00:00.000Z' })
  windowStart: string;

  @ApiProperty({ example: '2026-01-02T00:00:00.000Z' })
  windowEnd: string;

  /** The aggregation over the window, an exact decimal string. */
  @ApiProperty({ example: '1200' })
  value: string;
}

export class MeterResponse {
  @ApiProperty({ enum: ['meter'], example: 'meter' })
  object: 'meter';

  @ApiProperty({ example: 'bm_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  billableMetricId: string;

  @ApiProperty({ example: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  customerId: string;

  @ApiProperty({ example: '2026-01-01T00:00:00.000Z' })
  from: string;

  @ApiProperty({ example: '2026-02-01T00:00:00.000Z' })
  to: string;

  /** The metric's aggregation over [from, to), an exact decimal string. */
  @ApiProperty({ example: '37200' })
  totalValue: string;

  /** One entry per window when windowSize is given, oldest first; else empty. */
  @ApiProperty({ type: [MeterWindowResponse] })
  windowedValues: MeterWindowResponse[];
}
