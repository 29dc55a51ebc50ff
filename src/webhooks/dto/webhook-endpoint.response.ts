import { ApiProperty } from '@nestjs/swagger';
import { Metadata, sortedMetadata } from '../../common/metadata';
import { PaginationResponse } from '../../common/dto/pagination.response';
import {
  ENDPOINT_STATUSES,
  EndpointStatus,
  WebhookEndpoint,
} from '../entities/webhook-endpoint.entity';
import { WebhookAttempt } from '../entities/webhook-attempt.entity';

/** A webhook endpoint (docs/api.md §5.7), without its secret. Every key is always present. */
export class WebhookEndpointResponse {
  /** The endpoint's id. */
  @ApiProperty({ example: 'we_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  id: string;

  /** Always `webhookEndpoint`. */
  @ApiProperty({ enum: ['webhookEndpoint'], example: 'webhookEndpoint' })
  object: 'webhookEndpoint';

  /** True for live mode, false for test mode: the mode of the events it receives. */
  @ApiProperty({ example: false })
  livemode: boolean;

  /** Where events are POSTed. */
  @ApiProperty({ example: 'https://example.com/webhooks/billing' })
  url: string;

  /** The event types and prefixes sent, or `["*"]`. */
  @ApiProperty({ example: ['plan.*'], type: [String] })
  enabledEvents: string[];

  /** Free text, or null. */
  @ApiProperty({ nullable: true, type: String, example: 'Production listener' })
  description: string | null;

  /** Your own keys and values. */
  @ApiProperty({ type: 'object', additionalProperties: true, example: { team: 'billing' } })
  metadata: Metadata;

  /** `disabled` by PATCH or after failing for 5 days; nothing is sent then. */
  @ApiProperty({ enum: ENDPOINT_STATUSES })
  status: EndpointStatus;

  /** When the endpoint was created (ISO 8601, UTC). */
  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  createdAt: string;

  /** When the endpoint last changed (ISO 8601, UTC). */
  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  updatedAt: string;
}

/** The answer of create and rotateSecret: the only ones that show the secret. */
export class WebhookEndpointWithSecretResponse extends WebhookEndpointResponse {
  /** The signing secret (`whsec_…`): shown only now, keep it. */
  @ApiProperty({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
  secret: string;
}

export class WebhookEndpointListResponse {
  /** One page of endpoints, newest first. */
  data: WebhookEndpointResponse[];

  pagination: PaginationResponse;
}

export class DeletedWebhookEndpointResponse {
  @ApiProperty({ example: 'we_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  id: string;

  @ApiProperty({ enum: ['webhookEndpoint'] })
  object: 'webhookEndpoint';

  @ApiProperty({ enum: [true] })
  deleted: true;
}

/** One attempt to deliver an event to an endpoint. */
export class WebhookDeliveryAttemptResponse {
  /** The attempt's id. */
  @ApiProperty({ example: 'wha_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  id: string;

  /** Always `webhookDeliveryAttempt`. */
  @ApiProperty({ enum: ['webhookDeliveryAttempt'] })
  object: 'webhookDeliveryAttempt';

  @ApiProperty({ example: false })
  livemode: boolean;

  @ApiProperty({ example: 'we_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  endpointId: string;

  @ApiProperty({ example: 'evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  eventId: string;

  /** 1 for the first attempt of this event to this endpoint. */
  @ApiProperty({ example: 1 })
  attempt: number;

  /** True for a 2xx answer within 10 seconds. */
  @ApiProperty({ example: true })
  succeeded: boolean;

  /** The HTTP status the endpoint answered, or null (no answer). */
  @ApiProperty({ nullable: true, type: Number, example: 200 })
  statusCode: number | null;

  /** How long the attempt took, in milliseconds. */
  @ApiProperty({ example: 42 })
  durationMs: number;

  /** Why it failed, or null. */
  @ApiProperty({ nullable: true, type: String, example: null })
  error: string | null;

  /** When the next attempt is due, or null (succeeded, or the last attempt). */
  @ApiProperty({ nullable: true, type: String, example: null })
  nextRetryAt: string | null;

  /** When the attempt was made (ISO 8601, UTC). */
  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  createdAt: string;
}

export class WebhookDeliveryAttemptListResponse {
  /** One page of attempts, newest first. */
  data: WebhookDeliveryAttemptResponse[];

  pagination: PaginationResponse;
}

export function toWebhookEndpointResponse(e: WebhookEndpoint): WebhookEndpointResponse {
  return {
    id: e.id,
    object: 'webhookEndpoint',
    livemode: e.livemode,
    url: e.url,
    enabledEvents: e.enabledEvents,
    description: e.description,
    metadata: sortedMetadata(e.metadata),
    status: e.status,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

export function toWebhookDeliveryAttemptResponse(
  a: WebhookAttempt,
  livemode: boolean,
): WebhookDeliveryAttemptResponse {
  return {
    id: a.id,
    object: 'webhookDeliveryAttempt',
    livemode,
    endpointId: a.endpointId,
    eventId: a.eventId,
    attempt: a.attempt,
    succeeded: a.succeeded,
    statusCode: a.statusCode,
    durationMs: a.durationMs,
    error: a.error,
    nextRetryAt: a.nextRetryAt ? a.nextRetryAt.toISOString() : null,
    createdAt: a.createdAt.toISOString(),
  };
}
