import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../platform/caller';
import { ApiCommonResponses, ApiForbiddenMerchant, ApiNotFound } from '../platform/api-docs';
import { IfMatch } from '../platform/etag';
import { Idempotent } from '../platform/idempotency/idempotent.decorator';
import { Created } from '../platform/created.decorator';
import { BillableMetricsService } from './billable-metrics.service';
import { ApiCreateBillableMetric } from './catalog.api-docs';
import { BillableMetricListResponse, BillableMetricResponse } from './dto/billable-metric.response';
import { CreateBillableMetricDto } from './dto/create-billable-metric.dto';
import { ListBillableMetricsQueryDto } from './dto/list-billable-metrics-query.dto';
import { UpdateBillableMetricDto } from './dto/update-billable-metric.dto';

/** Billable metrics (docs/api.md §5.2). If-Match, 412, ETag and 304 are documented once for every route. */
@ApiTags('Billable metrics')
@ApiCommonResponses()
@Controller('v0/billableMetrics')
export class BillableMetricsController {
  constructor(private readonly metrics: BillableMetricsService) {}

  /**
   * Create a billable metric
   *
   * @remarks productId must be one of your products (400 PRODUCT_NOT_FOUND otherwise).
   * valueProperty is required for every aggregation but COUNT, and refused with COUNT.
   */
  @Post()
  @Created(BillableMetricResponse, { description: 'The new billable metric' })
  @Idempotent()
  @ApiForbiddenMerchant()
  @ApiCreateBillableMetric()
  create(@CurrentCaller() caller: Caller, @Body() body: CreateBillableMetricDto) {
    return this.metrics.create(caller, body);
  }

  /** List billable metrics, newest first */
  @ApiForbiddenMerchant()
  @Get()
  @ApiOkResponse({ type: BillableMetricListResponse, description: 'One page of billable metrics' })
  list(@CurrentCaller() caller: Caller, @Query() query: ListBillableMetricsQueryDto) {
    return this.metrics.list(caller.principal, query);
  }

  /** Retrieve a billable metric */
  @Get(':id')
  @ApiOkResponse({ type: BillableMetricResponse, description: 'The billable metric' })
  @ApiNotFound('billableMetric')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.metrics.get(caller.principal, id);
  }

  /**
   * Update a billable metric
   *
   * @remarks Changes name, description and unit. productId, merchantId, aggregation,
   * valueProperty and eventType never change (400 naming the field).
   */
  @Patch(':id')
  @Idempotent()
  @ApiOkResponse({ type: BillableMetricResponse, description: 'The updated billable metric' })
  @ApiNotFound('billableMetric')
  update(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() body: UpdateBillableMetricDto,
    @IfMatch() ifMatch?: string,
  ) {
    return this.metrics.update(caller, id, body, ifMatch);
  }
}
