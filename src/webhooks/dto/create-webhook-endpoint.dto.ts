import { ApiHideProperty, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { Metadata } from '../../common/metadata';
import {
  IsDescription,
  IsMetadata,
  IsOptionalNotNull,
  NotAllowed,
} from '../../common/validation/decorators';
import { EVENT_PREFIXES, EVENT_TYPES } from '../../events/event-types';
import { MAX_URL_LENGTH } from '../entities/webhook-endpoint.entity';

/** What `enabledEvents` may hold: event types, prefixes such as `plan.*`, or `*`. */
export const EVENT_SELECTORS = ['*', ...EVENT_PREFIXES, ...EVENT_TYPES];
/** Why an entry of `enabledEvents` is refused (checkEnabledEvents names the entry). */
export const SELECTOR_MESSAGE =
  'must be an event type such as "plan.updated", a prefix such as "plan.*", or "*"';

export class CreateWebhookEndpointDto {
  /** Where events are POSTed: an https:// URL on a public address. */
  @IsString()
  @MaxLength(MAX_URL_LENGTH, { context: { code: 'too_long' } })
  @ApiProperty({ example: 'https://example.com/webhooks/billing', maxLength: MAX_URL_LENGTH })
  url: string;

  /** The events sent: types, prefixes such as `plan.*`, or `["*"]` for all; each once. */
  // Each entry is checked by checkEnabledEvents, which names it in errors (`enabledEvents[2]`).
  @IsArray()
  @ArrayMinSize(1, { message: 'must name at least one event type, prefix or "*"' })
  @ArrayMaxSize(100)
  @ApiProperty({
    example: ['plan.*', 'price.updated'],
    type: 'array',
    items: { type: 'string', enum: EVENT_SELECTORS },
    minItems: 1,
    maxItems: 100,
    uniqueItems: true,
  })
  enabledEvents: unknown[];

  /** Free text, at most 2,000 characters; `null` or `""` for none. */
  @IsOptional()
  @IsDescription()
  @ApiPropertyOptional({ example: 'Production listener', nullable: true, type: String })
  description?: string | null;

  /** Up to 50 keys of your own (docs/api.md §1); `null` is refused (leave it out). */
  @IsOptionalNotNull()
  @IsMetadata()
  @ApiPropertyOptional({ example: { team: 'billing' } })
  metadata?: Metadata;

  // Fields of the endpoint that a create may not send (docs/api.md §1: a 400 that says why).
  @ApiHideProperty()
  @NotAllowed(
    'a new endpoint starts "enabled": PATCH /v0/webhookEndpoints/{id} with status "disabled" pauses it',
  )
  status?: never;

  @ApiHideProperty()
  @NotAllowed('is made by the service and shown once, in the answer to this request')
  secret?: never;
}
