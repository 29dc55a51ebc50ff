import { ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, ValidateBy } from 'class-validator';
import { ListQueryDto } from '../../common/dto/list-query.dto';
import { IsIdShape } from '../../common/validation/decorators';
import { EVENT_PREFIXES, EVENT_TYPES } from '../event-types';

/** A page is taken on one side of one cursor: `endingBefore` with `startingAfter` is refused. */
function NotWithStartingAfter(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'notWithStartingAfter',
      validator: {
        validate: (_value, args) =>
          (args?.object as ListEventsQueryDto).startingAfter === undefined,
        defaultMessage: () =>
          'cannot be sent with startingAfter: send startingAfter for the next older page or endingBefore for the next newer one',
      },
    },
    { context: { code: 'field_not_allowed' } },
  );
}

/** The size of a cursor page (docs/api.md §4): `GET /v0/events` and `GET /v0/usageEvents`. */
export class CursorPageQueryDto extends PickType(ListQueryDto, ['limit']) {}

/** `GET /v0/events`: a cursor page (docs/api.md §4), optionally of one type or resource. */
export class ListEventsQueryDto extends CursorPageQueryDto {
  /** The last event id of the previous page: this page starts with the next older event. */
  @IsOptional()
  @IsIdShape('evt', 'an event')
  @ApiPropertyOptional({ example: 'evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  startingAfter?: string;

  /**
   * The first event id of a page: this page holds the events just newer than it, still newest
   * first, and `hasMore` says whether newer ones follow (pass this page's first id as the next
   * `endingBefore`).
   */
  @IsOptional()
  @IsIdShape('evt', 'an event')
  @NotWithStartingAfter()
  @ApiPropertyOptional({ example: 'evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  endingBefore?: string;

  /** An event type (`plan.updated`) or every type of a resource (`plan.*`). */
  @IsOptional()
  @IsString()
  @IsIn([...EVENT_TYPES, ...EVENT_PREFIXES], {
    message: 'must be an event type such as "plan.updated" or a prefix such as "plan.*"',
  })
  @ApiPropertyOptional({ example: 'plan.*' })
  type?: string;
}
