import { ApiHideProperty, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { ListQueryDto } from '../../common/dto/list-query.dto';
import { Metadata, MetadataPatch } from '../../common/metadata';
import {
  IsIdShape,
  IsMetadata,
  IsName,
  IsOptionalNotNull,
  NotAllowed,
  metadataSchema,
} from '../../common/validation/decorators';
import { IsInstant } from '../../common/validation/instant';
import { SUBSCRIPTION_STATUSES, SubscriptionStatus } from '../entities/subscription.entity';

const metadataDoc = (patch = false) => ({
  ...metadataSchema({ allowNullValues: patch }),
  example: patch ? { seats: 12, legacy: null } : { seats: 10 },
});

export class CreateSubscriptionDto {
  /** The customer, one of yours in this mode. */
  @ApiProperty({ example: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0CUS' })
  @IsIdShape('cus', 'a customer')
  customerId: string;

  /** The plan, a live one of yours in this mode. */
  @ApiProperty({ example: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0PLN' })
  @IsIdShape('plan', 'a plan')
  planId: string;

  /**
   * When the subscription starts (ISO 8601, UTC); default now (the customer's clock). Later than
   * now: `pending` until then. Earlier (at most 90 days): `active` at once, backdated.
   */
  @ApiPropertyOptional({ example: '2027-01-31T10:00:00.000Z' })
  @IsOptionalNotNull()
  @IsInstant()
  startedAt?: string;

  /** Up to 50 keys of 1-40 characters; values are strings (≤ 500), numbers or booleans. */
  @ApiPropertyOptional(metadataDoc())
  @IsOptionalNotNull()
  @IsMetadata()
  metadata?: Metadata;
}

/** Every field is optional; an empty body changes nothing. */
export class UpdateSubscriptionDto {
  /**
   * Moves the subscription to another live plan of the same currency: the current period ends
   * now (invoiced under the old plan) and a new series of periods starts now.
   */
  @ApiPropertyOptional({ example: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0NEW' })
  @IsOptionalNotNull()
  @IsIdShape('plan', 'a plan')
  planId?: string;

  /** Merged key by key (a key set to null is removed; `metadata: null` removes every key). */
  @ApiPropertyOptional({ ...metadataDoc(true), nullable: true })
  @IsOptional()
  @IsMetadata({ allowNullValues: true })
  metadata?: MetadataPatch | null;

  @ApiHideProperty()
  @NotAllowed('customerId never changes: terminate this subscription and create another')
  customerId?: unknown;

  @ApiHideProperty()
  @NotAllowed('startedAt never changes: terminate this subscription and create another')
  startedAt?: unknown;

  @ApiHideProperty()
  @NotAllowed('status changes by itself or through POST /v0/subscriptions/{id}/termination')
  status?: unknown;

  @ApiHideProperty()
  @NotAllowed('endingAt is set through POST /v0/subscriptions/{id}/termination with at "periodEnd"')
  endingAt?: unknown;
}

export const TERMINATION_AT = ['periodEnd', 'now'] as const;
export type TerminationAt = (typeof TERMINATION_AT)[number];

export class TerminateSubscriptionDto {
  /** Why the subscription ends, 1-200 characters. */
  @ApiProperty({ example: 'Customer asked to cancel' })
  @IsName()
  reason: string;

  /** `periodEnd` (default): at the end of the current period; `now`: at once. */
  @ApiPropertyOptional({ enum: TERMINATION_AT, example: 'periodEnd', default: 'periodEnd' })
  @IsOptionalNotNull()
  @IsString()
  @IsIn(TERMINATION_AT)
  at?: TerminationAt;
}

export class ListSubscriptionsQueryDto extends ListQueryDto {
  /** Only the subscriptions of this customer. */
  @ApiPropertyOptional({ example: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0CUS' })
  @IsOptional()
  @IsIdShape('cus', 'a customer')
  customerId?: string;

  /** Only the subscriptions on this plan. */
  @ApiPropertyOptional({ example: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0PLN' })
  @IsOptional()
  @IsIdShape('plan', 'a plan')
  planId?: string;

  /** Only subscriptions in this status. */
  @ApiPropertyOptional({ enum: SUBSCRIPTION_STATUSES, example: 'active' })
  @IsOptional()
  @IsString()
  @IsIn(SUBSCRIPTION_STATUSES)
  status?: SubscriptionStatus;
}
