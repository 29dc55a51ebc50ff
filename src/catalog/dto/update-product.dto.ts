import { ApiHideProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { MetadataPatch } from '../../common/metadata';
import {
  IsDescription,
  IsMetadata,
  IsName,
  IsOptionalNotNull,
  NotAllowed,
} from '../../common/validation/decorators';
import { metadataSchema } from './metadata.doc';

/** Every field is optional; an empty body changes nothing. */
export class UpdateProductDto {
  /** A new name: 1-200 characters, not blank; `null` is rejected. */
  @ApiPropertyOptional({ example: 'AI Assistant Pro', minLength: 1, maxLength: 200 })
  @IsOptionalNotNull()
  @IsName()
  name?: string;

  /** A new description (at most 2,000 characters); `null` or `""` removes it. */
  @ApiPropertyOptional({ example: 'Chat assistant with priority support', nullable: true })
  @IsOptional()
  @IsDescription()
  description?: string | null;

  /**
   * Merged key by key into the current metadata (JSON Merge Patch): a key set to `null` is
   * removed; `metadata: null` removes every key.
   */
  @ApiPropertyOptional({ ...metadataSchema({ patch: true }), nullable: true })
  @IsOptional()
  @IsMetadata({ allowNullValues: true })
  metadata?: MetadataPatch | null;

  @ApiHideProperty()
  @NotAllowed(
    'merchantId never changes: a product stays with the organization that created it; create a new product instead',
  )
  merchantId?: unknown;
}
