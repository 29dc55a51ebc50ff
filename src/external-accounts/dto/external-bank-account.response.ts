import { PaginationResponse } from '../../common/dto/pagination.response';
import { ApiProperty } from '@nestjs/swagger';
import { ID_PREFIXES } from '../../common/ids';
import { Metadata, sortedMetadata } from '../../common/metadata';
import { metadataSchema } from '../../common/validation/decorators';
import { ACCOUNT_STATUSES, AccountStatus } from '../account-status';
import {
  ACCOUNT_HOLDER_TYPES,
  AccountHolderType,
  ExternalBankAccount,
} from '../entities/external-bank-account.entity';

const EXAMPLE_ID = `${ID_PREFIXES.externalBankAccount}_01JD3Y2Q6J8C4N1V9W5X7Z0EBA`;

/** An external bank account (the seed's section 2.3, plus statusReason). */
export class ExternalBankAccountResponse {
  @ApiProperty({ example: EXAMPLE_ID })
  id: string;

  /** Always `externalBankAccount`. */
  @ApiProperty({ enum: ['externalBankAccount'], example: 'externalBankAccount' })
  object: 'externalBankAccount';

  /** True in live mode, false in test mode (the mode of the API key that created it). */
  @ApiProperty({ example: false })
  livemode: boolean;

  @ApiProperty({ example: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ORG' })
  organizationId: string;

  @ApiProperty({ example: 'US' })
  countryCode: string;

  @ApiProperty({ example: 'STRIPE TEST BANK' })
  bankName: string;

  @ApiProperty({ example: 'USD' })
  currency: string;

  /** Redacted: "****" and `last4`. The full number is never returned. */
  @ApiProperty({ example: '****6789', pattern: '^\\*{4}[A-Z0-9]{2,4}$' })
  accountNumber: string;

  /** As stored: sort codes and BSBs without separators, BICs in upper case. */
  @ApiProperty({ example: '110000000' })
  routingNumber: string;

  @ApiProperty({ example: 'Jenny Rosen' })
  accountHolderName: string;

  @ApiProperty({ enum: ACCOUNT_HOLDER_TYPES, example: 'individual' })
  accountHolderType: AccountHolderType;

  /**
   * The last four characters of the account number, but never more than half of them: a 4- or
   * 5-character number shows 2, a 6- or 7-character one 3.
   */
  @ApiProperty({ example: '6789', pattern: '^[A-Z0-9]{2,4}$' })
  last4: string;

  /** `pending` until verified; `errored` when verification failed or the account stopped working. */
  @ApiProperty({ enum: ACCOUNT_STATUSES, example: 'pending' })
  status: AccountStatus;

  /** Why the account is errored; null otherwise. */
  @ApiProperty({ type: String, nullable: true, example: null })
  statusReason: string | null;

  @ApiProperty({ ...metadataSchema(), example: { payoutSchedule: 'weekly' } })
  metadata: Metadata;

  @ApiProperty({ format: 'date-time', example: '2026-01-31T12:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-31T12:00:00.000Z' })
  updatedAt: string;
}

/** The answer to DELETE: the account is gone. */
export class DeletedExternalBankAccountResponse {
  @ApiProperty({ example: EXAMPLE_ID })
  id: string;

  @ApiProperty({ enum: ['externalBankAccount'], example: 'externalBankAccount' })
  object: 'externalBankAccount';

  @ApiProperty({ enum: [true], example: true })
  deleted: true;
}

export class ExternalBankAccountListResponse {
  @ApiProperty({ type: [ExternalBankAccountResponse] })
  data: ExternalBankAccountResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}

export function toExternalBankAccountResponse(
  account: ExternalBankAccount,
): ExternalBankAccountResponse {
  return {
    id: account.id,
    object: 'externalBankAccount',
    livemode: account.livemode,
    organizationId: account.organizationId,
    countryCode: account.countryCode,
    bankName: account.bankName,
    currency: account.currency,
    accountNumber: `****${account.last4}`,
    routingNumber: account.routingNumber,
    accountHolderName: account.accountHolderName,
    accountHolderType: account.accountHolderType,
    last4: account.last4,
    status: account.status,
    statusReason: account.statusReason,
    metadata: sortedMetadata(account.metadata),
    createdAt: account.createdAt.toISOString(),
    updatedAt: account.updatedAt.toISOString(),
  };
}
