import { ApiHideProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { MetadataPatch } from '../../common/metadata';
import {
  IsDescription,
  IsMetadata,
  IsOptionalNotNull,
  NotAllowed,
} from '../../common/validation/decorators';
import {
  ENDPOINT_STATUSES,
  EndpointStatus,
  MAX_URL_LENGTH,
} from '../entities/webhook-endpoint.entity';

/** PATCH body: every field optional; an empty body changes nothing. */
export class UpdateWebhookEndpointDto {
  /** A new https:// URL on a public address. */
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(MAX_URL_LENGTH, { context: { code: 'too_long' } })
  @ApiPropertyOptional({ example: 'https://example.com/webhooks/billing' })
  url?: string;

  /** The new full list of events sent, as on create. */
  // Each entry is checked by checkEnabledEvents, which names it in errors (`enabledEvents[2]`).
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1, { message: 'must name at least one event type, prefix or "*"' })
  @ArrayMaxSize(100)
  @ApiPropertyOptional({ example: ['*'], type: [String] })
  enabledEvents?: unknown[];

  /** Free text; `null` or `""` removes it. */
  @IsOptional()
  @IsDescription()
  @ApiPropertyOptional({ nullable: true, type: String, example: 'Production receiver' })
  description?: string | null;

  /** Merged key by key; a key set to null is removed, null removes all. */
  @IsOptional()
  @IsMetadata({ allowNullValues: true })
  @ApiPropertyOptional({ nullable: true, example: { team: 'payments', legacy: null } })
  metadata?: MetadataPatch | null;

  /** `disabled` stops deliveries (pending retries are canceled); `enabled` resumes new ones. */
  @IsOptionalNotNull()
  @IsString()
  @IsIn(ENDPOINT_STATUSES, { message: 'must be "enabled" or "disabled"' })
  @ApiPropertyOptional({ enum: ENDPOINT_STATUSES })
  status?: EndpointStatus;

  @ApiHideProperty()
  @NotAllowed(
    'the secret is never set: POST /v0/webhookEndpoints/{id}/rotateSecret makes a new one',
  )
  secret?: never;

  @ApiHideProperty()
  @NotAllowed('livemode follows the API key: use a key of the other mode')
  livemode?: never;
}
