import { ApiProperty } from '@nestjs/swagger';
import { PaginationResponse } from '../../common/dto/pagination.response';
import { Metadata, sortedMetadata } from '../../common/metadata';
import { metadataSchema } from '../../common/validation/decorators';
import {
  SUBSCRIPTION_STATUSES,
  Subscription,
  SubscriptionStatus,
} from '../entities/subscription.entity';

/** A subscription: a customer on a plan. Every key is always present. */
export class SubscriptionResponse {
  @ApiProperty({ example: 'sub_01JD3Y7K2M5N8P1Q4R6S9T0VWX' })
  id: string;

  /** Always `subscription`. */
  @ApiProperty({ enum: ['subscription'], example: 'subscription' })
  object: 'subscription';

  @ApiProperty({ example: false })
  livemode: boolean;

  @ApiProperty({ example: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0CUS' })
  customerId: string;

  @ApiProperty({ example: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0PLN' })
  planId: string;

  /** The plan's currency. */
  @ApiProperty({ example: 'USD' })
  currency: string;

  @ApiProperty({ enum: SUBSCRIPTION_STATUSES, example: 'active' })
  status: SubscriptionStatus;

  @ApiProperty({ example: '2027-01-31T10:00:00.000Z' })
  startedAt: string;

  /** Where the series of billing periods starts: startedAt, or the last plan change. */
  @ApiProperty({ example: '2027-01-31T10:00:00.000Z' })
  billingAnchor: string;

  /** The start of the period open now; null unless active. */
  @ApiProperty({ type: String, nullable: true, example: '2027-01-31T10:00:00.000Z' })
  currentPeriodStart: string | null;

  /** The end of the period open now (exclusive); null unless active. */
  @ApiProperty({ type: String, nullable: true, example: '2027-02-28T10:00:00.000Z' })
  currentPeriodEnd: string | null;

  /** A scheduled end, or null. */
  @ApiProperty({ type: String, nullable: true, example: null })
  endingAt: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  terminatedAt: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  terminationReason: string | null;

  @ApiProperty({ ...metadataSchema(), example: { seats: 10 } })
  metadata: Metadata;

  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  updatedAt: string;
}

export class SubscriptionListResponse {
  /** One page of subscriptions, newest first. */
  @ApiProperty({ type: [SubscriptionResponse] })
  data: SubscriptionResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toSubscriptionResponse(s: Subscription): SubscriptionResponse {
  return {
    id: s.id,
    object: 'subscription',
    livemode: s.livemode,
    customerId: s.customerId,
    planId: s.planId,
    currency: s.currency,
    status: s.status,
    startedAt: s.startedAt.toISOString(),
    billingAnchor: s.billingAnchor.toISOString(),
    currentPeriodStart: iso(s.currentPeriodStart),
    currentPeriodEnd: iso(s.currentPeriodEnd),
    endingAt: iso(s.endingAt),
    terminatedAt: iso(s.terminatedAt),
    terminationReason: s.terminationReason,
    metadata: sortedMetadata(s.metadata),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
