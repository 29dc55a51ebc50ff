import { ApiHideProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { MetadataPatch } from '../../common/metadata';
import {
  IsMetadata,
  IsName,
  IsOptionalNotNull,
  NotAllowed,
} from '../../common/validation/decorators';
import { STATUS_REQUESTS, StatusRequest } from '../account-status';
import { ACCOUNT_HOLDER_TYPES, AccountHolderType } from '../entities/external-bank-account.entity';

const BANK_DETAILS_FIXED =
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
   * `new` submits the account (again) for verification and makes it `pending`; `verified` (from
   * pending) and `errored` (from pending or verified) record the outcome. A move to the current
   * status changes nothing; any other move is 409 INVALID_STATUS_TRANSITION.
   */
  @IsOptionalNotNull()
  @IsString()
  @IsIn(STATUS_REQUESTS, {
    message:
      'must be "new", "verified" or "errored" ("pending" is what an account shows after "new")',
  })
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
    'is set by the service: send status "errored" to mark the account errored, "new" to resubmit it',
  )
  statusReason?: never;
}
