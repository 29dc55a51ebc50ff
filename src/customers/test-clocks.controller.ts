import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ListQueryDto } from '../common/dto/list-query.dto';
import { Caller, CurrentCaller } from '../platform/caller';
import { ApiCommonResponses, ApiNotFound } from '../platform/api-docs';
import { Created } from '../platform/created.decorator';
import { Idempotent } from '../platform/idempotency/idempotent.decorator';
import {
  ApiCreateTestClock,
  ApiDeleteTestClockErrors,
  ApiTestClocksTestModeOnly,
} from './customers.api-docs';
import { DeletedResponse } from './dto/customer.response';
import { CreateTestClockDto, TestClockListResponse, TestClockResponse } from './dto/test-clock.dto';
import { TestClocksService } from './test-clocks.service';

/**
 * Test clocks (docs/api.md §5.9), test mode only: with a live key every route is a 404. The
 * advance route is the subscriptions module's (it runs their billing steps).
 */
@ApiTags('Test clocks')
@ApiCommonResponses()
@Controller('v0/testClocks')
export class TestClocksController {
  constructor(private readonly clocks: TestClocksService) {}

  /** Create a test clock */
  @Post()
  @Created(TestClockResponse, { description: 'The new test clock' })
  @Idempotent()
  @ApiCreateTestClock()
  @ApiTestClocksTestModeOnly()
  create(@CurrentCaller() caller: Caller, @Body() body: CreateTestClockDto) {
    return this.clocks.create(caller, body);
  }

  /** List test clocks, newest first */
  @Get()
  @ApiOkResponse({ type: TestClockListResponse, description: 'One page of test clocks' })
  @ApiTestClocksTestModeOnly()
  list(@CurrentCaller() caller: Caller, @Query() query: ListQueryDto) {
    return this.clocks.list(caller.principal, query);
  }

  /** Retrieve a test clock */
  @Get(':id')
  @ApiOkResponse({ type: TestClockResponse, description: 'The test clock' })
  @ApiNotFound('testClock')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.clocks.get(caller.principal, id);
  }

  /** Delete a test clock without customers */
  @Delete(':id')
  @Idempotent()
  @ApiOkResponse({ type: DeletedResponse, description: 'The test clock was deleted' })
  @ApiNotFound('testClock')
  @ApiDeleteTestClockErrors()
  remove(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.clocks.remove(caller, id);
  }
}
