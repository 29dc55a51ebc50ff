import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ListQueryDto } from '../common/dto/list-query.dto';
import { ApiCommonResponses, ApiNotFound } from '../platform/api-docs';
import { Created } from '../platform/created.decorator';
import { IfMatch } from '../platform/etag';
import { Idempotent } from '../platform/idempotency/idempotent.decorator';
import { SecretInAnswer } from '../platform/secret-in-answer';
import { Caller, CurrentCaller } from '../platform/caller';
import { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { ListWebhookDeliveriesQueryDto } from './dto/list-webhook-deliveries-query.dto';
import { UpdateWebhookEndpointDto } from './dto/update-webhook-endpoint.dto';
import {
  DeletedWebhookEndpointResponse,
  WebhookDeliveryAttemptListResponse,
  WebhookEndpointListResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
} from './dto/webhook-endpoint.response';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { ApiCreateWebhookEndpoint, ApiInvalidUrl } from './webhooks.api-docs';

@ApiTags('Webhook endpoints')
@ApiCommonResponses()
@Controller('v0/webhookEndpoints')
export class WebhooksController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  /**
   * Create a webhook endpoint
   *
   * @remarks Its signing secret is shown only in this answer. At most 16 endpoints per
   * organization and mode, enabled and disabled alike (409 WEBHOOK_ENDPOINT_LIMIT).
   */
  @Post()
  @Created(WebhookEndpointWithSecretResponse, { description: 'The new endpoint, with its secret' })
  @Idempotent()
  @SecretInAnswer('secret')
  @ApiCreateWebhookEndpoint()
  create(@CurrentCaller() caller: Caller, @Body() body: CreateWebhookEndpointDto) {
    return this.endpoints.create(caller, body);
  }

  /** Retrieve a webhook endpoint */
  @Get(':id')
  @ApiOkResponse({ type: WebhookEndpointResponse })
  @ApiNotFound('webhookEndpoint')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.endpoints.get(caller.principal, id);
  }

  /** List webhook endpoints, newest first */
  @Get()
  @ApiOkResponse({ type: WebhookEndpointListResponse })
  list(@CurrentCaller() caller: Caller, @Query() query: ListQueryDto) {
    return this.endpoints.list(caller.principal, query);
  }

  /**
   * Update a webhook endpoint
   *
   * @remarks Disabling cancels what it still had to receive; nothing is written when nothing
   * changes.
   */
  @Patch(':id')
  @Idempotent()
  @ApiOkResponse({ type: WebhookEndpointResponse })
  @ApiInvalidUrl()
  @ApiNotFound('webhookEndpoint')
  update(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() body: UpdateWebhookEndpointDto,
    @IfMatch() ifMatch?: string,
  ) {
    return this.endpoints.update(caller, id, body, ifMatch);
  }

  /** Delete a webhook endpoint */
  @Delete(':id')
  @Idempotent()
  @ApiOkResponse({ type: DeletedWebhookEndpointResponse })
  @ApiNotFound('webhookEndpoint')
  remove(@CurrentCaller() caller: Caller, @Param('id') id: string, @IfMatch() ifMatch?: string) {
    return this.endpoints.remove(caller, id, ifMatch);
  }

  /** Make a new signing secret; the old one keeps signing too for 24 hours */
  @Post(':id/rotateSecret')
  @HttpCode(200)
  @Idempotent()
  @SecretInAnswer('secret')
  @ApiOkResponse({ type: WebhookEndpointWithSecretResponse })
  @ApiNotFound('webhookEndpoint')
  rotateSecret(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.endpoints.rotateSecret(caller, id);
  }

  /** List the delivery attempts of a webhook endpoint, newest first */
  @Get(':id/deliveries')
  @ApiOkResponse({ type: WebhookDeliveryAttemptListResponse })
  @ApiNotFound('webhookEndpoint')
  deliveries(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() query: ListWebhookDeliveriesQueryDto,
  ) {
    return this.endpoints.attempts(caller.principal, id, query);
  }
}
