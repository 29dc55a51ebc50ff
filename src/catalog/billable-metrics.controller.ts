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
import { BillableMetricsService } from './billable-metrics.service';
import { BillableMetricListResponse, BillableMetricResponse } from './dto/billable-metric.response';
import { CreateBillableMetricDto } from './dto/create-billable-metric.dto';
import { ListBillableMetricsQueryDto } from './dto/list-billable-metrics-query.dto';
import { UpdateBillableMetricDto } from './dto/update-billable-metric.dto';
import { Idempotent } from '../common/idempotency/idempotent.decorator';

@ApiTags('Billable metrics')
@ApiCommonResponses()
@Controller('v0/billableMetrics')
export class BillableMetricsController {
  constructor(private readonly metrics: BillableMetricsService) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Create a billable metric',
    description:
      'productId must be one of your products (400 PRODUCT_NOT_FOUND otherwise). valueProperty ' +
      'is required for every aggregation but COUNT, and refused with COUNT.',
  })
  @ApiCreatedResponse({ type: BillableMetricResponse, description: 'The new billable metric' })
  @ApiForbiddenResponse({ type: ErrorEnvelope, description: 'merchantId is another organization' })
  create(@CurrentOrganization() org: string, @Body() body: CreateBillableMetricDto) {
    return this.metrics.create(org, body);
  }

  @Get()
  @ApiOperation({ summary: 'List billable metrics, newest first' })
  @ApiOkResponse({ type: BillableMetricListResponse, description: 'One page of billable metrics' })
  list(@CurrentOrganization() org: string, @Query() query: ListBillableMetricsQueryDto) {
    return this.metrics.list(org, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Retrieve a billable metric' })
  @ApiOkResponse({ type: BillableMetricResponse, description: 'The billable metric' })
  @ApiNotFound('billable metric')
  get(@CurrentOrganization() org: string, @Param('id') id: string) {
    return this.metrics.get(org, id);
  }

  @Patch(':id')
  @Idempotent()
  @ApiOperation({
    summary: 'Update a billable metric',
    description:
      'Changes name, description and unit. productId, merchantId, aggregation, valueProperty ' +
      'and eventType never change (400 naming the field).',
  })
  @ApiHeader({ name: 'If-Match', required: false, description: 'The ETag of the metric read' })
  @ApiOkResponse({ type: BillableMetricResponse, description: 'The updated billable metric' })
  @ApiNotFound('billable metric')
  @ApiPreconditionFailedResponse({
    type: ErrorEnvelope,
    description: 'If-Match does not match the current ETag',
  })
  update(
    @CurrentOrganization() org: string,
    @Param('id') id: string,
    @Body() body: UpdateBillableMetricDto,
    @IfMatch() ifMatch?: string,
  ) {
    return this.metrics.update(org, id, body, ifMatch);
  }
}
