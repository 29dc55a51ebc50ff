import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AdvanceTestClockDto, TestClockResponse } from '../customers/customers.service';
import { Caller, CurrentCaller } from '../events/caller';
import { ApiCommonResponses, ApiNotFound } from '../platform/api-docs';
import { Created } from '../platform/created.decorator';
import { IfMatch } from '../platform/etag';
import { Idempotent } from '../platform/idempotency/idempotent.decorator';
import { ClockAdvancer } from './clock-advancer';
import {
  CreateSubscriptionDto,
  ListSubscriptionsQueryDto,
  TerminateSubscriptionDto,
  UpdateSubscriptionDto,
} from './dto/subscription.dto';
import { SubscriptionListResponse, SubscriptionResponse } from './dto/subscription.response';
import {
  ApiCreateSubscription,
  ApiTerminateSubscription,
  ApiUpdateSubscriptionErrors,
} from './subscriptions.api-docs';
import { SubscriptionsService } from './subscriptions.service';

/** Subscriptions (docs/api.md §5.10). */
@ApiTags('Subscriptions')
@ApiCommonResponses()
@Controller('v0/subscriptions')
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  /** Create a subscription */
  @Post()
  @Created(SubscriptionResponse, { description: 'The new subscription' })
  @Idempotent()
  @ApiCreateSubscription()
  create(@CurrentCaller() caller: Caller, @Body() body: CreateSubscriptionDto) {
    return this.subscriptions.create(caller, body);
  }

  /** List subscriptions, newest first */
  @Get()
  @ApiOkResponse({ type: SubscriptionListResponse, description: 'One page of subscriptions' })
  list(@CurrentCaller() caller: Caller, @Query() query: ListSubscriptionsQueryDto) {
    return this.subscriptions.list(caller.principal, query);
  }

  /** Retrieve a subscription */
  @Get(':id')
  @ApiOkResponse({ type: SubscriptionResponse, description: 'The subscription' })
  @ApiNotFound('subscription')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.subscriptions.get(caller.principal, id);
  }

  /**
   * Update a subscription
   *
   * @remarks A new planId ends the current period now and starts a new series of periods under the new plan.
   */
  @Patch(':id')
  @Idempotent()
  @ApiOkResponse({ type: SubscriptionResponse, description: 'The updated subscription' })
  @ApiNotFound('subscription')
  @ApiUpdateSubscriptionErrors()
  update(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() body: UpdateSubscriptionDto,
    @IfMatch() ifMatch?: string,
  ) {
    return this.subscriptions.update(caller, id, body, ifMatch);
  }

  /** Terminate a subscription, now or at the end of its period */
  @Post(':id/termination')
  @HttpCode(200)
  @Idempotent()
  @ApiOkResponse({ type: SubscriptionResponse, description: 'The subscription, ended or ending' })
  @ApiNotFound('subscription')
  @ApiTerminateSubscription()
  terminate(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() body: TerminateSubscriptionDto,
  ) {
    return this.subscriptions.terminate(caller, id, body);
  }
}

/** The advance of a test clock (docs/api.md §5.9): it runs the subscriptions' billing steps. */
@ApiTags('Test clocks')
@ApiCommonResponses()
@Controller('v0/testClocks')
export class TestClockAdvanceController {
  constructor(private readonly advancer: ClockAdvancer) {}

  /**
   * Advance a test clock
   *
   * @remarks Answers once every billing step the time passed has run, in real-time order, each with its events.
   */
  @Post(':id/advance')
  @HttpCode(200)
  @Idempotent()
  @ApiOkResponse({ type: TestClockResponse, description: 'The clock at its new time' })
  @ApiNotFound('testClock')
  advance(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() body: AdvanceTestClockDto,
  ) {
    return this.advancer.advance(caller, id, body.frozenTime);
  }
}
