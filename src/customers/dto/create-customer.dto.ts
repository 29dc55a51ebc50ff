import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional, MaxLength } from 'class-validator';
import { Metadata } from '../../common/metadata';
import { IsMerchantId } from '../../common/merchant';
import {
  IsIdShape,
  IsMetadata,
  IsName,
  IsOptionalNotNull,
} from '../../common/validation/decorators';
import { AddressDto, IsAddress } from './address.dto';
import { metadataSchema } from './metadata.doc';

/** An email address of at most 254 characters, checked by class-validator's IsEmail. */
export function IsCustomerEmail(): PropertyDecorator {
  return (target, key) => {
    IsEmail({}, { message: 'must be a valid email address', context: { code: 'invalid_email' } })(
      target,
      key,
    );
    MaxLength(254, { message: 'must be at most 254 characters', context: { code: 'too_long' } })(
      target,
      key,
    );
  };
}

export class CreateCustomerDto {
  /** The customer's name: 1-200 characters, not blank. */
  @ApiProperty({ example: 'Jane Cooper' })
  @IsName()
  name: string;

  /** Where invoices go: a valid email address of at most 254 characters. */
  @ApiProperty({ example: 'jane@example.com', maxLength: 254 })
  @IsCustomerEmail()
  email: string;

  /** Your own id for the customer, 1-200 characters, unique in your organization and mode. */
  @ApiPropertyOptional({ type: String, nullable: true, example: 'crm-4711' })
  @IsOptional()
  @IsName()
  externalId?: string | null;

  /** A postal address (country required), or null. */
  @IsAddress()
  address?: AddressDto | null;

  /** A tax id (VAT number, EIN), 1-50 characters, or null. */
  @ApiPropertyOptional({ type: String, nullable: true, example: 'DE123456789' })
  @IsOptional()
  @IsName(50)
  taxId?: string | null;

  /**
   * Test mode only: the test clock the customer lives on (docs/api.md §5.9). Set on create
   * only; a live key sending it gets a 400.
   */
  @ApiPropertyOptional({ type: String, nullable: true, example: null })
  @IsOptional()
  @IsIdShape('clock', 'a test clock')
  testClockId?: string | null;

  /** Up to 50 keys of 1-40 characters; values are strings (≤ 500), numbers or booleans. */
  @ApiPropertyOptional(metadataSchema())
  @IsOptionalNotNull()
  @IsMetadata()
  metadata?: Metadata;

  /** The organization that bills the customer: defaults to yours, and may only be yours (403). */
  @ApiPropertyOptional({ example: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  @IsOptionalNotNull()
  @IsMerchantId()
  merchantId?: string;
}
