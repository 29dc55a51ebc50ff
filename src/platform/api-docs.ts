import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiHeader,
  ApiNotFoundResponse,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';

export class FieldErrorDoc {
  @ApiProperty({ example: 'properties.unitPrice' })
  field: string;
  @ApiProperty({ example: 'invalid_decimal' })
  code: string;
  @ApiProperty({ example: 'must be a decimal string such as "0.25"' })
  message: string;
}

/** The error envelope of docs/api.md §3, for the OpenAPI document. */
export class ErrorEnvelope {
  @ApiProperty({
    example: 'validation_error',
    enum: [
      'validation_error',
      'unauthorized',
      'forbidden',
      'not_found',
      'method_not_allowed',
      'request_timeout',
      'conflict',
      'precondition_failed',
      'payload_too_large',
      'unsupported_media_type',
      'idempotency_error',
      'rate_limited',
      'headers_too_large',
      'internal_error',
      'service_unavailable',
    ],
  })
  error: string;
  @ApiPropertyOptional({
    example: 'INVALID_DECIMAL',
    description: 'An UPPER_SNAKE business code, when one applies',
  })
  code?: string;
  @ApiProperty({ example: 'Request validation failed' })
  message: string;
  @ApiPropertyOptional({
    type: [FieldErrorDoc],
    description: 'For validation errors: one entry per problem',
  })
  errors?: FieldErrorDoc[];
  @ApiProperty({
    example: 'req_01JD3Y2Q6J8C4N1V9W5X7Z0ABC',
    description: 'Same as the X-Request-Id header',
  })
  requestId: string;
}

/** The responses every authenticated route shares (bearer scheme, 400, 401, 429, 500). */
export function ApiCommonResponses(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiBearerAuth(),
    ApiHeader({
      name: 'X-Request-Id',
      required: false,
      description: 'Echoed back; 1-128 of [A-Za-z0-9._-]',
    }),
    ApiBadRequestResponse({ type: ErrorEnvelope, description: 'Validation failed' }),
    ApiUnauthorizedResponse({
      type: ErrorEnvelope,
      description: 'Missing, unknown or revoked API key',
    }),
    ApiTooManyRequestsResponse({ type: ErrorEnvelope, description: 'Rate limit exceeded' }),
    ApiResponse({ status: 500, type: ErrorEnvelope, description: 'Unexpected error' }),
  );
}

/** 404 for routes that take a resource id. */
export function ApiNotFound(resource: string): MethodDecorator {
  return applyDecorators(
    ApiNotFoundResponse({
      type: ErrorEnvelope,
      description: `No such ${resource} in your organization`,
    }),
  );
}
