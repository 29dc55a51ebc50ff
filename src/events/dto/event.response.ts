import { ApiProperty } from '@nestjs/swagger';
import { EVENT_TYPES } from '../event-types';
import { EventRecord } from '../entities/event.entity';

export class EventDataResponse {
  /** The resource exactly as GET shows it after the change. */
  @ApiProperty({ type: 'object', additionalProperties: true })
  object: Record<string, unknown>;

  /** The old value of each changed field, on updates; null otherwise. */
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true })
  previousAttributes: Record<string, unknown> | null;
}

export class EventRequestResponse {
  /** The X-Request-Id of the request that made the change. */
  @ApiProperty({ example: 'req_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  id: string;

  /** Its Idempotency-Key, or null. */
  @ApiProperty({ example: 'order-1234', nullable: true, type: String })
  idempotencyKey: string | null;
}

export class EventActorResponse {
  /** `apiKey` (a request), `operator` (the command line) or `system` (the service itself). */
  @ApiProperty({ enum: ['apiKey', 'operator', 'system'] })
  type: 'apiKey' | 'operator' | 'system';

  /** The API key's id for `apiKey`; null otherwise. */
  @ApiProperty({ example: 'key_01JD3Y2Q6J8C4N1V9W5X7Z0ABC', nullable: true, type: String })
  id: string | null;
}

/** A change to a resource (docs/api.md §5.6). Every key is always present. */
export class EventResponse {
  /** The event's id. */
  @ApiProperty({ example: 'evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  id: string;

  /** Always `event`. */
  @ApiProperty({ enum: ['event'], example: 'event' })
  object: 'event';

  /** What happened. */
  @ApiProperty({ enum: EVENT_TYPES, example: 'plan.updated' })
  type: string;

  /** True for live mode, false for test mode. */
  @ApiProperty({ example: false })
  livemode: boolean;

  /** When the change was committed (ISO 8601, UTC). */
  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  createdAt: string;

  data: EventDataResponse;

  /** The request that made the change; null for the command line and the service itself. */
  request: EventRequestResponse | null;

  actor: EventActorResponse;
}

export class CursorPaginationResponse {
  /** The page size asked for (1-100, default 10). */
  @ApiProperty({ example: 10 })
  limit: number;

  /**
   * True when more events follow in the direction of the page: older ones (pass the last id of
   * this page as `startingAfter`), or, for a page asked with `endingBefore`, newer ones (pass the
   * first id of this page as `endingBefore`).
   */
  @ApiProperty({ example: true })
  hasMore: boolean;
}

export class EventListResponse {
  /** One page of events, newest first. */
  data: EventResponse[];

  pagination: CursorPaginationResponse;
}

export function toEventResponse(event: EventRecord): EventResponse {
  return {
    id: event.id,
    object: 'event',
    type: event.type,
    livemode: event.livemode,
    createdAt: event.createdAt.toISOString(),
    data: { object: event.data.object, previousAttributes: event.data.previousAttributes ?? null },
    request:
      event.actorType === 'apiKey' && event.requestId !== null
        ? { id: event.requestId, idempotencyKey: event.idempotencyKey }
        : null,
    actor: { type: event.actorType as EventActorResponse['type'], id: event.actorId },
  };
}
