import { ApiHideProperty, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString } from 'class-validator';
import { FieldError } from '../../common/errors';
import { IsCountryCode, IsCurrencyCode } from '../../common/iso';
import { IsMerchantId } from '../../common/merchant';
import { Metadata } from '../../common/metadata';
import {
  IsMetadata,
  IsName,
  IsOptionalNotNull,
  NotAllowed,
} from '../../common/validation/decorators';
import { checkBankDetails } from '../bank-details';
import { ACCOUNT_HOLDER_TYPES, AccountHolderType } from '../entities/external-bank-account.entity';

export class CreateExternalAccountDto {
  /**
   * The bank-detail rules of the account and routing numbers (by the country's rules), for the
   * answer to a body that fails other rules too (see WithCrossFieldErrors): the service checks
   * them, with the rest, once every field is valid on its own.
   */
  static crossFieldErrors(body: Record<string, unknown>): FieldError[] {
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    const check = checkBankDetails({
      countryCode: text(body.countryCode),
      currency: text(body.currency),
      accountNumber: text(body.accountNumber),
      routingNumber: text(body.routingNumber),
    });
    return check.ok ? [] : check.errors;
  }

  /** ISO 3166-1 alpha-2 country of the bank, in upper case. It chooses the account and routing rules. */
  @IsString()
  @IsCountryCode()
  @ApiProperty({ example: 'US', pattern: '^[A-Z]{2}$' })
  countryCode: string;

  /** The bank's name, 1-200 characters. */
  @IsName()
  @ApiProperty({ example: 'STRIPE TEST BANK', minLength: 1, maxLength: 200 })
  bankName: string;

  /** ISO 4217 currency of the account, in upper case. */
  @IsString()
  @IsCurrencyCode()
  @ApiProperty({ example: 'USD', pattern: '^[A-Z]{3}$' })
  currency: string;

  /**
   * The full account number: 4-34 digits and letters, no spaces or punctuation; for US 4-17
   * digits; an IBAN (two letters, two digits, ...) must pass the ISO 13616 check and be of
   * countryCode. Stored encrypted and never returned: responses show "****" and the last four.
   */
  @IsString()
  @ApiProperty({ minLength: 4, maxLength: 34, pattern: '^[A-Za-z0-9]{4,34}$' })
  accountNumber: string;

  /**
   * US: a 9-digit ABA routing number; GB: a 6-digit sort code ("108800" or "10-88-00");
   * CA: 8-9 digits ("11000000" or "11000-000"); AU: a 6-digit BSB ("110000" or "110-000");
   * elsewhere a BIC (8 or 11 characters) or a national bank code of 3-34 digits and letters.
   */
  @IsString()
  @ApiProperty({ example: '110000000' })
  routingNumber: string;

  /** The name of the person or company that holds the account, 1-200 characters. */
  @IsName()
  @ApiProperty({ example: 'Jenny Rosen', minLength: 1, maxLength: 200 })
  accountHolderName: string;

  /** Who holds the account. */
  @IsString()
  @IsIn(ACCOUNT_HOLDER_TYPES, { message: 'must be "individual" or "company"' })
  @ApiProperty({ enum: ACCOUNT_HOLDER_TYPES, example: 'individual' })
  accountHolderType: AccountHolderType;

  /** Up to 50 keys of your own (strings of at most 500 characters, numbers or booleans). */
  @IsOptionalNotNull()
  @IsMetadata()
  @ApiPropertyOptional({ example: { payoutSchedule: 'weekly' } })
  metadata?: Metadata;

  /**
   * The owning organization; defaults to yours. Another organization's id is a 403; a string not
   * shaped like an organization id is a 400 `invalid_id`.
   */
  @IsOptionalNotNull()
  @IsMerchantId()
  @ApiPropertyOptional({ example: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ORG' })
  organizationId?: string;

  // Fields of the account that a create may not send (docs/api.md §1: a 400 that says why).
  @ApiHideProperty()
  @NotAllowed('is set by the verification process: a new account starts as "pending"')
  status?: never;

  @ApiHideProperty()
  @NotAllowed('is set by the verification process when it refuses an account')
  statusReason?: never;

  @ApiHideProperty()
  @NotAllowed('is derived from accountNumber: send the whole number there')
  last4?: never;
}
