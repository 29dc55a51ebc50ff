import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../platform/caller';
import { ApiCommonResponses, ApiForbiddenMerchant, ApiNotFound } from '../platform/api-docs';
import { IfMatch } from '../platform/etag';
import { Idempotent } from '../platform/idempotency/idempotent.decorator';
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
  create(@CurrentCaller() caller: Caller, @Body() body: CreateProductDto) {
    return this.products.create(caller, body);
  }

  /** List products, newest first */
  @Get()
  @ApiOkResponse({ type: ProductListResponse, description: 'One page of products' })
  @ApiForbiddenMerchant()
  list(@CurrentCaller() caller: Caller, @Query() query: ListProductsQueryDto) {
    return this.products.list(caller.principal, query);
  }

  /** Retrieve a product */
  @Get(':id')
  @ApiOkResponse({ type: ProductResponse, description: 'The product' })
  @ApiNotFound('product')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.products.get(caller.principal, id);
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
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() body: UpdateProductDto,
    @IfMatch() ifMatch?: string,
  ) {
    return this.products.update(caller, id, body, ifMatch);
  }
}
