import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../platform/caller';
import { ApiCommonResponses, ApiNotFound } from '../platform/api-docs';
import { IfMatch } from '../platform/etag';
import { Idempotent } from '../platform/idempotency/idempotent.decorator';
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
  create(@CurrentCaller() caller: Caller, @Body() body: CreatePriceDto): Promise<PriceResponse> {
    return this.prices.create(caller, body);
  }

  /** List prices, newest first; deleted prices only with includeDeleted=true. */
  @Get()
  @ApiOkResponse({ type: PriceListResponse })
  list(@CurrentCaller() caller: Caller, @Query() query: ListPricesQueryDto) {
    return this.prices.list(caller.principal, query);
  }

  /** Retrieve a price; a deleted price answers 200 with deletedAt set. */
  @Get(':id')
  @ApiOkResponse({ type: PriceResponse })
  @ApiNotFound('price')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<PriceResponse> {
    return this.prices.get(caller.principal, id);
  }

  /** Update a price's invoiceDisplayName or properties (properties are replaced as a whole). */
  @Patch(':id')
  @Idempotent()
  @ApiOkResponse({ type: PriceResponse, description: 'Price updated successfully' })
  @ApiNotFound('price')
  @ApiUpdatePriceErrors()
  update(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() body: UpdatePriceDto,
    @IfMatch() ifMatch?: string,
  ): Promise<PriceResponse> {
    return this.prices.update(caller, id, body, ifMatch);
  }

  /** Delete a price that is in no live plan (409 PRICE_IN_USE otherwise). */
  @Delete(':id')
  @Idempotent()
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Price deleted (or already deleted)' })
  @ApiNotFound('price')
  @ApiDeletePriceErrors()
  remove(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @IfMatch() ifMatch?: string,
  ): Promise<void> {
    return this.prices.remove(caller, id, ifMatch);
  }
}
