import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiPreconditionFailedResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentOrganization } from '../auth/current-organization.decorator';
import { ApiCommonResponses, ApiNotFound, ErrorEnvelope } from '../common/http/api-docs';
import { IfMatch } from '../common/http/etag';
import { ListResponse } from '../common/dto/list-query.dto';
import { CreatePriceDto } from './dto/create-price.dto';
import { ListPricesQueryDto } from './dto/list-prices-query.dto';
import { PRICE_PROPERTIES_MODELS } from './dto/price-properties.dto';
import { PriceListResponse, PriceResponse } from './dto/price.response';
import { UpdatePriceDto } from './dto/update-price.dto';
import { PricesService } from './prices.service';
import { Idempotent } from '../common/idempotency/idempotent.decorator';

const IF_MATCH = ApiHeader({
  name: 'If-Match',
  required: false,
  description: 'The ETag of the price as you last read it; 412 when it has changed since',
});

@ApiTags('prices')
@ApiCommonResponses()
@ApiExtraModels(...PRICE_PROPERTIES_MODELS)
@Controller('v0/prices')
export class PricesController {
  constructor(private readonly prices: PricesService) {}

  /** Create a price for a billable metric; it is free (planId null) until a plan lists it. */
  @Post()
  @Idempotent()
  @ApiCreatedResponse({ type: PriceResponse, description: 'Price created successfully' })
  async create(
    @CurrentOrganization() org: string,
    @Body() body: CreatePriceDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PriceResponse> {
    const price = await this.prices.create(org, body);
    void reply.header('Location', `/v0/prices/${price.id}`);
    return price;
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
  @IF_MATCH
  @ApiOkResponse({ type: PriceResponse, description: 'Price updated successfully' })
  @ApiNotFound('price')
  @ApiConflictResponse({ type: ErrorEnvelope, description: 'PRICE_DELETED' })
  @ApiPreconditionFailedResponse({ type: ErrorEnvelope, description: 'If-Match does not match' })
  update(
    @CurrentOrganization() org: string,
    @Param('id') id: string,
    @Body() body: UpdatePriceDto,
    @IfMatch() ifMatch?: string,
  ): Promise<PriceResponse> {
    return this.prices.update(org, id, body, ifMatch);
  }

  /** Delete a price that is in no live plan (409 PRICE_IN_USE otherwise). */
  @Delete(':id')
  @Idempotent()
  @HttpCode(204)
  @IF_MATCH
  @ApiNoContentResponse({ description: 'Price deleted (or already deleted)' })
  @ApiNotFound('price')
  @ApiConflictResponse({ type: ErrorEnvelope, description: 'PRICE_IN_USE' })
  @ApiPreconditionFailedResponse({ type: ErrorEnvelope, description: 'If-Match does not match' })
  remove(
    @CurrentOrganization() org: string,
    @Param('id') id: string,
    @IfMatch() ifMatch?: string,
  ): Promise<void> {
    return this.prices.remove(org, id, ifMatch);
  }
}
