import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../events/caller';
import { ApiCommonResponses, ApiNotFound } from '../platform/api-docs';
import { MeterQueryDto, MeterResponse } from './dto/meter.dto';
import { MetersService } from './meters.service';

/** The meter of a billable metric (docs/api.md §5.11). */
@ApiTags('Billable metrics')
@ApiCommonResponses()
@Controller('v0/billableMetrics')
export class MetersController {
  constructor(private readonly meters: MetersService) {}

  /**
   * Read a customer's usage of a billable metric
   *
   * @remarks The metric's aggregation over the customer's events with from ≤ timestamp < to (at
   * most one year), and per UTC hour or day with windowSize: the numbers its invoices count.
   */
  @Get(':id/meter')
  @ApiOkResponse({ type: MeterResponse, description: 'The meter' })
  @ApiNotFound('billableMetric')
  meter(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query() query: MeterQueryDto) {
    return this.meters.meter(caller.principal, id, query);
  }
}
