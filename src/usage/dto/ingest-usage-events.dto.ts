import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * One usage event of `POST /v0/usageEvents` (docs/api.md §5.11). These classes document the
 * body; the batch is read by readUsageEvents (usage-event-input.ts), which names every problem
 * by its path (`events[417].data.tokens`) and is shared with bench/usage.ts's baseline
 * (docs/decisions.md, usage).
 */
export class UsageEventInputDto {
  /** Makes the event count once per organization and mode, forever: retries send the same key. */
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'req-8c1f-0001' })
  idempotencyKey: string;

  /** What happened: 1-100 characters of A-Z, a-z, 0-9, ".", "_", ":" and "-". */
  @ApiProperty({ pattern: '^[A-Za-z0-9._:-]{1,100}$', example: 'api.call' })
  type: string;

  /** The customer (send this or externalCustomerId, not both). */
  @ApiPropertyOptional({ example: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  customerId?: string;

  /** The customer's externalId (send this or customerId, not both). */
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, example: 'acme-42' })
  externalCustomerId?: string;

  /**
   * When it happened, ISO 8601 in UTC with a Z; default now on the customer's clock. At most 90
   * days before now and 5 minutes after (400 TIMESTAMP_OUT_OF_RANGE).
   */
  @ApiPropertyOptional({ example: '2026-01-31T12:00:00.000Z' })
  timestamp?: string;

  /**
   * A JSON object of at most 4 KB and 8 levels; the value a metric reads at its valueProperty
   * is a decimal string or a non-negative number without an exponent.
   */
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { tokens: '1200', model: 'small' },
  })
  data?: Record<string, unknown>;
}

/** `POST /v0/usageEvents`: 1-1,000 events, at most 1 MB; all or nothing. */
export class IngestUsageEventsDto {
  @ApiProperty({ type: [UsageEventInputDto], minItems: 1, maxItems: 1000 })
  events: UsageEventInputDto[];
}

/** The answer of `POST /v0/usageEvents` (202): every event is stored or was already. */
export class IngestUsageEventsResponse {
  /** Events stored by this request. */
  @ApiProperty({ example: 998 })
  accepted: number;

  /** Events whose idempotencyKey was already stored, or came earlier in this request. */
  @ApiProperty({ example: 2 })
  duplicates: number;
}
