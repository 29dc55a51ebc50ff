import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ListQueryDto } from '../common/dto/list-query.dto';
import { ApiCommonResponses, ApiErrorResponse, ApiNotFound } from '../platform/api-docs';
import { Created } from '../platform/created.decorator';
import { IfMatch } from '../platform/etag';
import { Idempotent } from '../platform/idempotency/idempotent.decorator';
import { SecretInAnswer } from '../platform/secret-in-answer';
import { Caller, CurrentCaller } from '../events/caller';
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
import { InvalidWebhookUrlError } from './webhooks.errors';
import { urlProblem } from './url-policy';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/** A URL the endpoint rules refuse, as the API words it. */
const ApiInvalidUrl = () =>
  ApiErrorResponse('validation_error: a field, or a URL that is not https:// on a public host', [
    'A URL that is not https://',
    new InvalidWebhookUrlError(urlProblem('http://example.com/webhooks', false) ?? ''),
  ]);

@ApiTags('Webhook endpoints')
@ApiCommonResponses()
@Controller('v0/webhookEndpoints')
export class WebhooksController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post()
  @Created(WebhookEndpointWithSecretResponse, { description: 'The new endpoint, with its secret' })
  @Idempotent()
  @SecretInAnswer('secret')
  @ApiOperation({ summary: 'Create a webhook endpoint (its secret is shown only in this answer)' })
  @ApiBody({
    type: CreateWebhookEndpointDto,
    examples: {
      quickstart: {
        summary:
          "Every event to the quickstart's receiver on your machine (docs/quickstart.md; start " +
          'the service with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)',
        value: {
          url: 'http://127.0.0.1:4242/webhooks/quickstart',
          enabledEvents: ['*'],
          description: 'The quickstart receiver',
        },
      },
      plans: {
        summary: 'Plan events to your https:// listener (replace url with one of yours)',
        value: {
          url: 'https://hooks.your-company.example/billing',
          enabledEvents: ['plan.*', 'price.updated'],
          description: 'Production listener',
        },
      },
    },
  })
  @ApiInvalidUrl()
  create(@CurrentCaller() caller: Caller, @Body() body: CreateWebhookEndpointDto) {
    return this.endpoints.create(caller, body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Retrieve a webhook endpoint' })
  @ApiOkResponse({ type: WebhookEndpointResponse })
  @ApiNotFound('webhookEndpoint')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.endpoints.get(caller.principal, id);
  }

  @Get()
  @ApiOperation({ summary: 'List webhook endpoints, newest first' })
  @ApiOkResponse({ type: WebhookEndpointListResponse })
  list(@CurrentCaller() caller: Caller, @Query() query: ListQueryDto) {
    return this.endpoints.list(caller.principal, query);
  }

  @Patch(':id')
  @Idempotent()
  @ApiOperation({ summary: 'Update a webhook endpoint' })
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

  @Delete(':id')
  @Idempotent()
  @ApiOperation({ summary: 'Delete a webhook endpoint' })
  @ApiOkResponse({ type: DeletedWebhookEndpointResponse })
  @ApiNotFound('webhookEndpoint')
  remove(@CurrentCaller() caller: Caller, @Param('id') id: string, @IfMatch() ifMatch?: string) {
    return this.endpoints.remove(caller, id, ifMatch);
  }

  @Post(':id/rotateSecret')
  @HttpCode(200)
  @Idempotent()
  @SecretInAnswer('secret')
  @ApiOperation({
    summary: 'Make a new signing secret; the old one keeps signing too for 24 hours',
  })
  @ApiOkResponse({ type: WebhookEndpointWithSecretResponse })
  @ApiNotFound('webhookEndpoint')
  rotateSecret(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.endpoints.rotateSecret(caller, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'List the delivery attempts of a webhook endpoint, newest first' })
  @ApiOkResponse({ type: WebhookDeliveryAttemptListResponse })
  @ApiNotFound('webhookEndpoint')
  deliveries(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() query: ListWebhookDeliveriesQueryDto,
  ) {
    return this.endpoints.deliveryAttempts(caller.principal, id, query);
  }
}
