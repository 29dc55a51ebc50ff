import { ApiHideProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { MetadataPatch } from '../../common/metadata';
import {
  IsMetadata,
  IsName,
  IsOptionalNotNull,
  NotAllowed,
} from '../../common/validation/decorators';
import { AddressDto, IsAddress } from './address.dto';
import { IsCustomerEmail } from './create-customer.dto';
import { metadataSchema } from './metadata.doc';

/** Every field is optional; an empty body changes nothing. */
export class UpdateCustomerDto {
  /** A new name: 1-200 characters, not blank; `null` is rejected. */
  @ApiPropertyOptional({ example: 'Jane Cooper-Smith' })
  @IsOptionalNotNull()
  @IsName()
  name?: string;

  /** A new email address; `null` is rejected. */
  @ApiPropertyOptional({ example: 'jane.cooper@example.com', maxLength: 254 })
  @IsOptionalNotNull()
  @IsCustomerEmail()
  email?: string;

  /** A new external id (unique in your organization and mode), or null to remove it. */
  @ApiPropertyOptional({ type: String, nullable: true, example: 'crm-4712' })
  @IsOptional()
  @IsName()
  externalId?: string | null;

  /** A new address, replacing the whole address (country required), or null to remove it. */
  @IsAddress()
  address?: AddressDto | null;

  /** A new tax id, or null to remove it. */
  @ApiPropertyOptional({ type: String, nullable: true, example: 'DE987654321' })
  @IsOptional()
  @IsName(50)
  taxId?: string | null;

  /** Merged key by key (a key set to null is removed; `metadata: null` removes every key). */
  @ApiPropertyOptional({ ...metadataSchema({ patch: true }), nullable: true })
  @IsOptional()
  @IsMetadata({ allowNullValues: true })
  metadata?: MetadataPatch | null;

  @ApiHideProperty()
  @NotAllowed(
    'testClockId is set when a customer is created and never changes: create a new customer on the clock instead',
  )
  testClockId?: unknown;

  @ApiHideProperty()
  @NotAllowed('merchantId never changes: a customer stays with the organization that created it')
  merchantId?: unknown;
}
