import { ValidationFailedError } from '../common/errors';

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
