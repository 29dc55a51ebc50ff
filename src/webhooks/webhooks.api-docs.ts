import { applyDecorators } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { ApiErrorResponse } from '../platform/api-docs';
import { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { checkUrl } from './url-policy';
import { InvalidWebhookUrlError, WebhookEndpointLimitError } from './webhooks.errors';
import { MAX_ENDPOINTS } from './webhook-endpoints.service';

/**
 * The OpenAPI description of the webhook routes' bodies and error examples beyond what the
 * controller declares.
 */

/** A URL the endpoint rules refuse, as the API words it. */
export const ApiInvalidUrl = () =>
  ApiErrorResponse('validation_error: a field, or a URL that is not https:// on a public host', [
    'A URL that is not https://',
    new InvalidWebhookUrlError(checkUrl('http://example.com/webhooks', false).problem ?? ''),
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
