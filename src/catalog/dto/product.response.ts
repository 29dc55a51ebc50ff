import { ApiProperty } from '@nestjs/swagger';
import { Metadata, sortedMetadata } from '../../common/metadata';
import { Product } from '../entities/product.entity';
import { metadataSchema } from './metadata.doc';
import { PaginationResponse } from '../../common/dto/pagination.response';

/** A product: what a merchant sells. Every key is always present. */
export class ProductResponse {
  /** The product's id. */
  @ApiProperty({ example: 'prod_01JD3Y7K2M5N8P1Q4R6S9T0VWX' })
  id: string;

  /** Always `product`. */
  @ApiProperty({ enum: ['product'], example: 'product' })
  object: 'product';

  /** True in live mode, false in test mode (the mode of the API key that created it). */
  @ApiProperty({ example: false })
  livemode: boolean;

  /** The organization that sells the product. */
  @ApiProperty({ example: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  merchantId: string;

  /** The product's name. */
  @ApiProperty({ example: 'AI Assistant' })
  name: string;

  /** Free text, or null. */
  @ApiProperty({ example: 'Chat assistant billed by tokens', nullable: true, type: String })
  description: string | null;

  /** Key-value pairs of your own; `{}` when there are none. Keys come back sorted. */
  @ApiProperty(metadataSchema())
  metadata: Metadata;

  /** When the product was created (ISO 8601, UTC). */
  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  createdAt: string;

  /** When the product last changed (ISO 8601, UTC). */
  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  updatedAt: string;
}

export class ProductListResponse {
  /** One page of products, newest first. */
  @ApiProperty({ type: [ProductResponse] })
  data: ProductResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}

export function toProductResponse(product: Product): ProductResponse {
  return {
    id: product.id,
    object: 'product',
    livemode: product.livemode,
    merchantId: product.organizationId,
    name: product.name,
    description: product.description,
    metadata: sortedMetadata(product.metadata),
    createdAt: product.createdAt.toISOString(),
    updatedAt: product.updatedAt.toISOString(),
  };
}
