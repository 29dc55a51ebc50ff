import { applyDecorators } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { ApiError, ValidationFailedError } from '../common/errors';
import { ApiErrorResponse } from '../platform/api-docs';
import { IngestUsageEventsDto } from './dto/ingest-usage-events.dto';

/**
 * The request example and error examples of `POST /v0/usageEvents` for the OpenAPI document. The
 * example runs as it is from Swagger UI once a customer with externalId `acme-42` exists
 * (`POST /v0/customers`); send it twice to see `duplicates`.
 */
export const ApiIngestUsageEvents = () =>
  applyDecorators(
    ApiBody({
      type: IngestUsageEventsDto,
      examples: {
        batch: {
          summary: 'Two events of a customer named by your own id (create customer acme-42 first)',
          value: {
            events: [
              {
                idempotencyKey: 'acme-42-call-0001',
                type: 'api.call',
                externalCustomerId: 'acme-42',
                data: { tokens: '1200', model: 'small' },
              },
              {
                idempotencyKey: 'acme-42-call-0002',
                type: 'api.call',
                externalCustomerId: 'acme-42',
                data: { tokens: 830.5, model: 'large' },
              },
            ],
          },
        },
      },
    }),
    ApiErrorResponse(
      'validation_error: any invalid event; nothing is stored',
      [
        'A customer of another organization or mode, or deleted',
        new ValidationFailedError([
          {
            field: 'events[417].customerId',
            code: 'customer_not_found',
            message: 'names no customer of yours (in this mode)',
          },
        ]),
      ],
      [
        'A timestamp more than 90 days before now on the customer’s clock',
        new ValidationFailedError([
          {
            field: 'events[3].timestamp',
            code: 'timestamp_out_of_range',
            message:
              "must be from 2025-11-02T12:00:00.000Z to 2026-01-31T12:05:00.000Z (now on the customer's clock: 90 days back, 5 minutes ahead)",
          },
        ]),
      ],
      [
        'A value a SUM metric cannot add',
        new ValidationFailedError([
          {
            field: 'events[0].data.tokens',
            code: 'invalid_decimal',
            message:
              'must be a non-negative decimal string such as "12.5" (at most 18 integer and 12 fractional digits) or a non-negative JSON number written without an exponent',
          },
        ]),
      ],
    ),
    ApiErrorResponse('payload_too_large: the body is larger than 1 MB', [
      'A body over 1 MB',
      new ApiError(
        'payload_too_large',
        'Request bodies may be at most 100 KB (1 MB for POST /v0/usageEvents)',
        { code: 'PAYLOAD_TOO_LARGE' },
      ),
    ]),
  );
