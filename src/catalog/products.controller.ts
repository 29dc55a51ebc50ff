import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiPreconditionFailedResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentOrganization } from '../auth/current-organization.decorator';
import { ApiCommonResponses, ApiNotFound, ErrorEnvelope } from '../common/http/api-docs';
import { IfMatch } from '../common/http/etag';
import { CreateProductDto } from './dto/create-product.dto';
import { ListProductsQueryDto } from './dto/list-products-query.dto';
import { ProductListResponse, ProductResponse } from './dto/product.response';
import { UpdateProductDto } from './dto/update-product.dto';
import { ProductsService } from './products.service';
import { Idempotent } from '../common/idempotency/idempotent.decorator';

const forbiddenMerchant = ApiForbiddenResponse({
  type: ErrorEnvelope,
  description: 'merchantId is another organization',
});

@ApiTags('Products')
@ApiCommonResponses()
@Controller('v0/products')
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Post()
  @Idempotent()
  @ApiOperation({ summary: 'Create a product' })
  @ApiCreatedResponse({ type: ProductResponse, description: 'The new product' })
  @forbiddenMerchant
  create(@CurrentOrganization() org: string, @Body() body: CreateProductDto) {
    return this.products.create(org, body);
  }

  @Get()
  @ApiOperation({ summary: 'List products, newest first' })
  @ApiOkResponse({ type: ProductListResponse, description: 'One page of products' })
  @forbiddenMerchant
  list(@CurrentOrganization() org: string, @Query() query: ListProductsQueryDto) {
    return this.products.list(org, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Retrieve a product' })
  @ApiOkResponse({ type: ProductResponse, description: 'The product' })
  @ApiNotFound('product')
  get(@CurrentOrganization() org: string, @Param('id') id: string) {
    return this.products.get(org, id);
  }

  @Patch(':id')
  @Idempotent()
  @ApiOperation({
    summary: 'Update a product',
    description: 'Changes name, description and metadata (merged key by key; null removes a key).',
  })
  @ApiHeader({ name: 'If-Match', required: false, description: 'The ETag of the product read' })
  @ApiOkResponse({ type: ProductResponse, description: 'The updated product' })
  @ApiNotFound('product')
  @ApiPreconditionFailedResponse({
    type: ErrorEnvelope,
    description: 'If-Match does not match the current ETag',
  })
  update(
    @CurrentOrganization() org: string,
    @Param('id') id: string,
    @Body() body: UpdateProductDto,
    @IfMatch() ifMatch?: string,
  ) {
    return this.products.update(org, id, body, ifMatch);
  }
}
