import { ConflictError, ValidationFailedError } from '../common/errors';

/** 400 INVALID_WEBHOOK_URL: the URL is not https://, or reaches an internal address. */
export class InvalidWebhookUrlError extends ValidationFailedError {
  constructor(reason: string) {
    super(
      [{ field: 'url', code: 'invalid_webhook_url', message: reason }],
      'Request validation failed',
      'INVALID_WEBHOOK_URL',
    );
  }
}

/** 409 WEBHOOK_ENDPOINT_LIMIT: the organization has MAX_ENDPOINTS endpoints in this mode. */
export class WebhookEndpointLimitError extends ConflictError {
  constructor(limit: number) {
    super(
      'WEBHOOK_ENDPOINT_LIMIT',
      `An organization has at most ${limit} webhook endpoints in each mode (enabled and disabled alike): delete one first`,
    );
  }
}
