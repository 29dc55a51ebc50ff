import { ApiProperty } from '@nestjs/swagger';
import { CursorPaginationResponse } from '../../events/dto/event.response';
import { UsageEvent } from '../entities/usage-event.entity';

/** A stored usage event (docs/api.md §5.11), exactly as sent; it never changes. */
export class UsageEventResponse {
  @ApiProperty({ example: 'uev_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  id: string;

  @ApiProperty({ enum: ['usageEvent'], example: 'usageEvent' })
  object: 'usageEvent';

  @ApiProperty({ example: false })
  livemode: boolean;

  /** The key that makes the event count once, per organization and mode, forever. */
  @ApiProperty({ example: 'req-8c1f-0001' })
  idempotencyKey: string;

  /** What happened; a billable metric counts the events of its `eventType`. */
  @ApiProperty({ example: 'api.call' })
  type: string;

  /** The customer, whether the event named it by id or by externalCustomerId. */
  @ApiProperty({ example: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  customerId: string;

  /** When it happened (the customer's clock when the event did not say). */
  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  timestamp: string;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { tokens: '1200' } })
  data: Record<string, unknown>;

  @ApiProperty({ example: '2026-01-31T12:00:01.000Z' })
  createdAt: string;

  /** Always null: usage events are never deleted (they are kept as long as their invoices). */
  @ApiProperty({ type: String, nullable: true, example: null })
  deletedAt: null;

  /** Equal to createdAt: a usage event never changes. */
  @ApiProperty({ example: '2026-01-31T12:00:01.000Z' })
  updatedAt: string;
}

export class UsageEventListResponse {
  @ApiProperty({ type: [UsageEventResponse] })
  data: UsageEventResponse[];

  @ApiProperty({ type: CursorPaginationResponse })
  pagination: CursorPaginationResponse;
}

export function toUsageEventResponse(e: UsageEvent): UsageEventResponse {
  const createdAt = e.createdAt.toISOString();
  return {
    id: e.id,
    object: 'usageEvent',
    livemode: e.livemode,
    idempotencyKey: e.idempotencyKey,
    type: e.type,
    customerId: e.customerId,
    timestamp: e.timestamp.toISOString(),
    data: e.data,
    createdAt,
    updatedAt: createdAt,
    deletedAt: null,
  };
}
