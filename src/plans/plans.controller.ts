import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../platform/caller';
import { ApiCommonResponses, ApiForbiddenMerchant, ApiNotFound } from '../platform/api-docs';
import { IfMatch } from '../platform/etag';
import { Idempotent } from '../platform/idempotency/idempotent.decorator';
import { Created } from '../platform/created.decorator';
import { CreatePlanDto } from './dto/create-plan.dto';
import { ListPlansQueryDto } from './dto/list-plans-query.dto';
import { CREATE_PLAN_EXAMPLES, PLAN_EXAMPLE } from './dto/plan.examples';
import { PlanListResponse, PlanResponse } from './dto/plan.response';
import { UpdatePlanDto } from './dto/update-plan.dto';
import { ApiCreatePlanErrors, ApiUpdatePlanErrors } from './plans.api-docs';
import { PlansService } from './plans.service';

/** Plans (docs/api.md §5.4). If-Match, 412, ETag and 304 are documented once for every route. */
@ApiTags('Plans')
@ApiCommonResponses()
@Controller('v0/plans')
export class PlansController {
  constructor(private readonly plans: PlansService) {}

  /**
   * Create a plan and attach its prices, in one transaction. Each listed price must be free, of
   * your organization, and for a different billable metric of the plan's product.
   */
  @Post()
  @Created(PlanResponse, { description: 'Plan created successfully', example: PLAN_EXAMPLE })
  @Idempotent()
  @ApiBody({ type: CreatePlanDto, examples: CREATE_PLAN_EXAMPLES })
  @ApiForbiddenMerchant()
  @ApiCreatePlanErrors()
  create(@CurrentCaller() caller: Caller, @Body() body: CreatePlanDto): Promise<PlanResponse> {
    return this.plans.create(caller, body);
  }

  /** List plans, newest first; deleted plans only with includeDeleted=true. */
  @Get()
  @ApiOkResponse({ type: PlanListResponse })
  @ApiForbiddenMerchant()
  list(@CurrentCaller() caller: Caller, @Query() query: ListPlansQueryDto) {
    return this.plans.list(caller.principal, query);
  }

  /** Retrieve a plan with its prices; a deleted plan answers 200 with deletedAt set. */
  @Get(':id')
  @ApiOkResponse({ type: PlanResponse })
  @ApiNotFound('plan')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<PlanResponse> {
    return this.plans.get(caller.principal, id);
  }

  /** Update a plan: tax is merged per key; prices is the new full list (dropped prices become free). */
  @Patch(':id')
  @Idempotent()
  @ApiOkResponse({ type: PlanResponse, description: 'Plan updated successfully' })
  @ApiNotFound('plan')
  @ApiUpdatePlanErrors()
  update(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() body: UpdatePlanDto,
    @IfMatch() ifMatch?: string,
  ): Promise<PlanResponse> {
    return this.plans.update(caller, id, body, ifMatch);
  }

  /** Delete a plan and its prices (soft: deletedAt set); deleting it again answers the same. */
  @Delete(':id')
  @Idempotent()
  @ApiOkResponse({ type: PlanResponse, description: 'The deleted plan, deletedAt set' })
  @ApiNotFound('plan')
  remove(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @IfMatch() ifMatch?: string,
  ): Promise<PlanResponse> {
    return this.plans.remove(caller, id, ifMatch);
  }
}
