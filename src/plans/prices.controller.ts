import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentOrganization } from '../auth/current-organization.decorator';
import { ApiCommonResponses, ApiNotFound } from '../platform/api-docs';
import { IfMatch } from '../platform/etag';
import type { CommitHook } from '../database/commit-hook';
import { IdempotencyCommit, Idempotent } from '../platform/idempotency/idempotent.decorator';
import { ListResponse } from '../common/dto/list-query.dto';
import { Created } from '../platform/created.decorator';
import { CreatePriceDto } from './dto/create-price.dto';
import { ListPricesQueryDto } from './dto/list-prices-query.dto';
import { PRICE_PROPERTIES_MODELS } from './dto/price-properties.dto';
import { PriceListResponse, PriceResponse } from './dto/price.response';
import { UpdatePriceDto } from './dto/update-price.dto';
import { CREATE_PRICE_EXAMPLES } from './dto/plan.examples';
import { ApiCreatePriceErrors, ApiDeletePriceErrors, ApiUpdatePriceErrors } from './plans.api-docs';
import { PricesService } from './prices.service';

/** Prices (docs/api.md §5.3). If-Match, 412, ETag and 304 are documented once for every route. */
@ApiTags('Prices')
@ApiCommonResponses()
@ApiExtraModels(...PRICE_PROPERTIES_MODELS)
@Controller('v0/prices')
export class PricesController {
  constructor(private readonly prices: PricesService) {}

  /** Create a price for a billable metric; it is free (planId null) until a plan lists it. */
  @Post()
  @Created(PriceResponse, { description: 'Price created successfully' })
  @Idempotent()
  @ApiBody({ type: CreatePriceDto, examples: CREATE_PRICE_EXAMPLES })
  @ApiCreatePriceErrors()
  create(
    @CurrentOrganization() org: string,
    @Body() body: CreatePriceDto,
    @IdempotencyCommit() commit?: CommitHook,
  ): Promise<PriceResponse> {
    return this.prices.create(org, body, commit);
  }

  /** List prices, newest first; deleted prices only with includeDeleted=true. */
  @Get()
  @ApiOkResponse({ type: PriceListResponse })
  list(
    @CurrentOrganization() org: string,
    @Query() query: ListPricesQueryDto,
  ): Promise<ListResponse<PriceResponse>> {
    return this.prices.list(org, query);
  }

  /** Retrieve a price; a deleted price answers 200 with deletedAt set. */
  @Get(':id')
  @ApiOkResponse({ type: PriceResponse })
  @ApiNotFound('price')
  get(@CurrentOrganization() org: string, @Param('id') id: string): Promise<PriceResponse> {
    return this.prices.get(org, id);
  }

  /** Update a price's invoiceDisplayName or properties (properties are replaced as a whole). */
  @Patch(':id')
  @Idempotent()
  @ApiOkResponse({ type: PriceResponse, description: 'Price updated successfully' })
  @ApiNotFound('price')
  @ApiUpdatePriceErrors()
  update(
    @CurrentOrganization() org: string,
    @Param('id') id: string,
    @Body() body: UpdatePriceDto,
    @IfMatch() ifMatch?: string,
    @IdempotencyCommit() commit?: CommitHook,
  ): Promise<PriceResponse> {
    return this.prices.update(org, id, body, ifMatch, commit);
  }

  /** Delete a price that is in no live plan (409 PRICE_IN_USE otherwise). */
  @Delete(':id')
  @Idempotent()
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Price deleted (or already deleted)' })
  @ApiNotFound('price')
  @ApiDeletePriceErrors()
  remove(
    @CurrentOrganization() org: string,
    @Param('id') id: string,
    @IfMatch() ifMatch?: string,
    @IdempotencyCommit() commit?: CommitHook,
  ): Promise<void> {
    return this.prices.remove(org, id, ifMatch, commit);
  }
}
