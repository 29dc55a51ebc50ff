import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../events/caller';
import { ApiCommonResponses, ApiNotFound } from '../platform/api-docs';
import { BodyLimit } from '../platform/body-limit';
import { Idempotent } from '../platform/idempotency/idempotent.decorator';
import { IngestUsageEventsDto, IngestUsageEventsResponse } from './dto/ingest-usage-events.dto';
import { ListUsageEventsQueryDto } from './dto/list-usage-events-query.dto';
import { UsageEventListResponse, UsageEventResponse } from './dto/usage-event.response';
import { MAX_REQUEST_BYTES } from './usage-event-input';
import { UsageEventsService } from './usage-events.service';
import { ApiIngestUsageEvents } from './usage.api-docs';

/** Usage events (docs/api.md §5.11). */
@ApiTags('Usage events')
@ApiCommonResponses()
@Controller('v0/usageEvents')
export class UsageEventsController {
  constructor(private readonly usage: UsageEventsService) {}

  /**
   * Send usage events
   *
   * @remarks 1-1,000 events and at most 1 MB a request, all or nothing: any invalid event makes
   * the whole request a 400 naming every problem by its path, and nothing is stored. 202 once
   * every event is stored durably; an idempotencyKey already stored counts in `duplicates`.
   */
  @Post()
  @HttpCode(202)
  @BodyLimit(MAX_REQUEST_BYTES)
  @Idempotent()
  @ApiBody({ type: IngestUsageEventsDto })
  @ApiAcceptedResponse({ type: IngestUsageEventsResponse, description: 'Every event is stored' })
  @ApiIngestUsageEvents()
  ingest(@CurrentCaller() caller: Caller, @Body() body: unknown) {
    return this.usage.ingest(caller, body);
  }

  /** List usage events, newest first (cursor pages) */
  @Get()
  @ApiOkResponse({ type: UsageEventListResponse, description: 'One page of usage events' })
  list(@CurrentCaller() caller: Caller, @Query() query: ListUsageEventsQueryDto) {
    return this.usage.list(caller.principal, query);
  }

  /** Retrieve a usage event */
  @Get(':id')
  @ApiOkResponse({ type: UsageEventResponse, description: 'The usage event' })
  @ApiNotFound('usageEvent')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.usage.get(caller.principal, id);
  }
}
