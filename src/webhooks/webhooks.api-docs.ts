import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOkResponse } from '@nestjs/swagger';
import { ApiErrorResponse, ApiNotFound } from '../platform/api-docs';
import { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import {
  DeletedWebhookEndpointResponse,
  WebhookDeliveryAttemptListResponse,
  WebhookEndpointListResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
} from './dto/webhook-endpoint.response';
import { urlProblem } from './url-policy';
import { InvalidWebhookUrlError, WebhookEndpointLimitError } from './webhooks.errors';
import { MAX_ENDPOINTS } from './webhook-endpoints.service';

/**
 * The OpenAPI description of each webhook route beyond its summary (the controller's doc
 * comments): bodies, answers and error examples.
 */

/** A URL the endpoint rules refuse, as the API words it. */
const ApiInvalidUrl = () =>
  ApiErrorResponse('validation_error: a field, or a URL that is not https:// on a public host', [
    'A URL that is not https://',
    new InvalidWebhookUrlError(urlProblem('http://example.com/webhooks', false) ?? ''),
  ]);

export const ApiCreateWebhookEndpoint = () =>
  applyDecorators(
    ApiBody({
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
    }),
    ApiInvalidUrl(),
    ApiErrorResponse('conflict: the organization has its 16 endpoints in this mode', [
      'WEBHOOK_ENDPOINT_LIMIT',
      new WebhookEndpointLimitError(MAX_ENDPOINTS),
    ]),
  );

export const ApiGetWebhookEndpoint = () =>
  applyDecorators(ApiOkResponse({ type: WebhookEndpointResponse }), ApiNotFound('webhookEndpoint'));

export const ApiListWebhookEndpoints = () => ApiOkResponse({ type: WebhookEndpointListResponse });

export const ApiUpdateWebhookEndpoint = () =>
  applyDecorators(
    ApiOkResponse({ type: WebhookEndpointResponse }),
    ApiInvalidUrl(),
    ApiNotFound('webhookEndpoint'),
  );

export const ApiDeleteWebhookEndpoint = () =>
  applyDecorators(
    ApiOkResponse({ type: DeletedWebhookEndpointResponse }),
    ApiNotFound('webhookEndpoint'),
  );

export const ApiRotateSecret = () =>
  applyDecorators(
    ApiOkResponse({ type: WebhookEndpointWithSecretResponse }),
    ApiNotFound('webhookEndpoint'),
  );

export const ApiListDeliveries = () =>
  applyDecorators(
    ApiOkResponse({ type: WebhookDeliveryAttemptListResponse }),
    ApiNotFound('webhookEndpoint'),
  );
