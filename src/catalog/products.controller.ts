import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentOrganization } from '../auth/current-organization.decorator';
import { ApiCommonResponses, ApiForbiddenMerchant, ApiNotFound } from '../platform/api-docs';
import { IfMatch } from '../platform/etag';
import type { CommitHook } from '../database/commit-hook';
import { IdempotencyCommit, Idempotent } from '../platform/idempotency/idempotent.decorator';
import { Created } from '../platform/created.decorator';
import { CreateProductDto } from './dto/create-product.dto';
import { ListProductsQueryDto } from './dto/list-products-query.dto';
import { ProductListResponse, ProductResponse } from './dto/product.response';
import { UpdateProductDto } from './dto/update-product.dto';
import { ApiCreateProductBody } from './catalog.api-docs';
import { ProductsService } from './products.service';

/** Products (docs/api.md §5.1). If-Match, 412, ETag and 304 are documented once for every route. */
@ApiTags('Products')
@ApiCommonResponses()
@Controller('v0/products')
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  /** Create a product */
  @Post()
  @Created(ProductResponse, { description: 'The new product' })
  @Idempotent()
  @ApiCreateProductBody()
  @ApiForbiddenMerchant()
  create(
    @CurrentOrganization() org: string,
    @Body() body: CreateProductDto,
    @IdempotencyCommit() commit?: CommitHook,
  ) {
    return this.products.create(org, body, commit);
  }

  /** List products, newest first */
  @Get()
  @ApiOkResponse({ type: ProductListResponse, description: 'One page of products' })
  @ApiForbiddenMerchant()
  list(@CurrentOrganization() org: string, @Query() query: ListProductsQueryDto) {
    return this.products.list(org, query);
  }

  /** Retrieve a product */
  @Get(':id')
  @ApiOkResponse({ type: ProductResponse, description: 'The product' })
  @ApiNotFound('product')
  get(@CurrentOrganization() org: string, @Param('id') id: string) {
    return this.products.get(org, id);
  }

  /**
   * Update a product
   *
   * @remarks Changes name, description and metadata (merged key by key; null removes a key).
   */
  @Patch(':id')
  @Idempotent()
  @ApiOkResponse({ type: ProductResponse, description: 'The updated product' })
  @ApiNotFound('product')
  update(
    @CurrentOrganization() org: string,
    @Param('id') id: string,
    @Body() body: UpdateProductDto,
    @IfMatch() ifMatch?: string,
    @IdempotencyCommit() commit?: CommitHook,
  ) {
    return this.products.update(org, id, body, ifMatch, commit);
  }
}
