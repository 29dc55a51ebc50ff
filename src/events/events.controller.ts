import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiCommonResponses, ApiNotFound } from '../platform/api-docs';
import { Caller, CurrentCaller } from '../platform/caller';
import { EventListResponse, EventResponse } from './dto/event.response';
import { ListEventsQueryDto } from './dto/list-events-query.dto';
import { EventsService } from './events.service';

@ApiTags('Events')
@ApiCommonResponses()
@Controller('v0/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({ summary: 'List events, newest first (cursor pages)' })
  @ApiOkResponse({ type: EventListResponse })
  list(@CurrentCaller() caller: Caller, @Query() query: ListEventsQueryDto) {
    return this.events.list(caller.principal, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Retrieve an event' })
  @ApiOkResponse({ type: EventResponse })
  @ApiNotFound('event')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.events.get(caller.principal, id);
  }
}
