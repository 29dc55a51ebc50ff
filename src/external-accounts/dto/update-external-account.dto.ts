import { ApiHideProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { applyDecorators } from '@nestjs/common';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { MetadataPatch } from '../../common/metadata';
import {
  IsMetadata,
  IsName,
  IsOptionalNotNull,
  NotAllowed,
  Rule,
} from '../../common/validation/decorators';
import { ACCOUNT_STATUSES, STATUS_REQUESTS, StatusRequest } from '../account-status';
import { ACCOUNT_HOLDER_TYPES, AccountHolderType } from '../entities/external-bank-account.entity';

const isAccountStatus = (value: unknown) =>
  (ACCOUNT_STATUSES as readonly unknown[]).includes(value);

/**
 * `status` takes only "new" (docs/api.md §5.5). The statuses a response shows are set by the
 * verification process, and sending one says so (code status_set_by_verification); any other
 * value is an invalid_value. The two rules fail apart, so each value gets one message.
 */
function IsStatusRequest(): PropertyDecorator {
  return applyDecorators(
    Rule(
      'statusSetByVerification',
      'status_set_by_verification',
      (value) =>
        `"${String(value)}" is set by the verification process, never by a client: send "new" to submit the account for verification again`,
      (value) => !isAccountStatus(value),
    ),
    Rule(
      'isStatusRequest',
      'invalid_value',
      'must be "new", which submits the account for verification again (the verification process sets "pending", "verified" and "errored")',
      (value) => value === 'new' || isAccountStatus(value),
    ),
  );
}

export const BANK_DETAILS_FIXED =
  'bank details never change: create a new external account (POST /v0/externalAccounts) and delete this one';

/** PATCH body (the seed's section 4.2): every field optional; an empty body changes nothing. */
export class UpdateExternalAccountDto {
  /** The name of the person or company that holds the account, 1-200 characters. */
  @IsOptionalNotNull()
  @IsName()
  @ApiPropertyOptional({ example: 'Jenny Rosen', minLength: 1, maxLength: 200 })
  accountHolderName?: string;

  /** Who holds the account. */
  @IsOptionalNotNull()
  @IsString()
  @IsIn(ACCOUNT_HOLDER_TYPES, { message: 'must be "individual" or "company"' })
  @ApiPropertyOptional({ enum: ACCOUNT_HOLDER_TYPES, example: 'individual' })
  accountHolderType?: AccountHolderType;

  /**
   * Only `new`: submits a verified or errored account for verification again, and it shows
   * `pending` until the verification decides (a pending account stays as it is). `pending`,
   * `verified` and `errored` are set by the verification process, never by a client (400).
   */
  @IsOptionalNotNull()
  @IsString()
  @IsStatusRequest()
  @ApiPropertyOptional({ enum: STATUS_REQUESTS, example: 'new' })
  status?: StatusRequest;

  /** Merged key by key into the current metadata; a key set to null is removed, null removes all. */
  @IsOptional()
  @IsMetadata({ allowNullValues: true })
  @ApiPropertyOptional({ nullable: true, example: { payoutSchedule: 'monthly', legacyId: null } })
  metadata?: MetadataPatch | null;

  @ApiHideProperty()
  @NotAllowed(BANK_DETAILS_FIXED)
  accountNumber?: never;

  @ApiHideProperty()
  @NotAllowed(BANK_DETAILS_FIXED)
  routingNumber?: never;

  @ApiHideProperty()
  @NotAllowed(BANK_DETAILS_FIXED)
  countryCode?: never;

  @ApiHideProperty()
  @NotAllowed(BANK_DETAILS_FIXED)
  currency?: never;

  @ApiHideProperty()
  @NotAllowed(BANK_DETAILS_FIXED)
  bankName?: never;

  @ApiHideProperty()
  @NotAllowed('an external account never moves to another organization')
  organizationId?: never;

  @ApiHideProperty()
  @NotAllowed(
    'is set by the verification process: send status "new" to submit the account for verification again',
  )
  statusReason?: never;

  @ApiHideProperty()
  @NotAllowed(BANK_DETAILS_FIXED)
  last4?: never;
}
