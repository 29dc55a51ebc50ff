import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsIdShape } from '../../common/validation/decorators';
import { IsInstant } from '../../common/validation/instant';
import { CursorPageQueryDto } from '../../events/dto/list-events-query.dto';

/** `GET /v0/usageEvents`: a cursor page (docs/api.md §4), newest first, with filters. */
export class ListUsageEventsQueryDto extends CursorPageQueryDto {
  /** The last id of the previous page: this page starts with the next older event. */
  @IsOptional()
  @IsIdShape('uev', 'a usage event')
  @ApiPropertyOptional({ example: 'uev_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  startingAfter?: string;

  /** Only this customer's events. */
  @IsOptional()
  @IsString()
  @MaxLength(48)
  @ApiPropertyOptional({ example: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  customerId?: string;

  /** Only events of this type. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9._:-]{1,100}$/, { message: 'must be an event type such as "api.call"' })
  @ApiPropertyOptional({ example: 'api.call' })
  type?: string;

  /** Only events with timestamp ≥ from. */
  @IsOptional()
  @IsInstant()
  @ApiPropertyOptional({ example: '2026-01-01T00:00:00.000Z' })
  from?: string;

  /** Only events with timestamp < to. */
  @IsOptional()
  @IsInstant()
  @ApiPropertyOptional({ example: '2026-02-01T00:00:00.000Z' })
  to?: string;
}
