import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { Metadata } from '../../common/metadata';
import {
  IsDescription,
  IsMetadata,
  IsName,
  IsOptionalNotNull,
} from '../../common/validation/decorators';
import { IsMerchantId } from '../../common/merchant';
import { metadataSchema } from './metadata.doc';

export class CreateProductDto {
  /** What the product is called: 1-200 characters, not blank. */
  @ApiProperty({ example: 'AI Assistant', minLength: 1, maxLength: 200 })
  @IsName()
  name: string;

  /** Free text, at most 2,000 characters; `null` or `""` for none. */
  @ApiPropertyOptional({ example: 'Chat assistant billed by tokens', nullable: true })
  @IsOptional()
  @IsDescription()
  description?: string | null;

  /** The organization that sells the product: defaults to yours, and may only be yours (403). */
  @ApiPropertyOptional({ example: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  @IsOptionalNotNull()
  @IsMerchantId()
  merchantId?: string;

  /** Up to 50 keys of 1-40 characters; values are strings (≤ 500), numbers or booleans. */
  @ApiPropertyOptional(metadataSchema())
  @IsOptionalNotNull()
  @IsMetadata()
  metadata?: Metadata;
}
