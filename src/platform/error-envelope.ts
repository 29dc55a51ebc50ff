import { HttpException } from '@nestjs/common';
import {
  ApiError,
  ERROR_STATUS,
  ErrorCategory,
  FieldError,
  ServiceUnavailableError,
} from '../common/errors';
import { driverCode, isDatabaseUnavailable } from '../database/database-errors';

/** The body of every error response (docs/api.md §3). */
interface ErrorBody {
  error: ErrorCategory;
  code?: string;
  message: string;
  errors?: FieldError[];
  requestId: string;
}

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True for errors the server should log with their stack (5xx that were not expected). */
  unexpected: boolean;
}

const STATUS_CATEGORY = new Map<number, ErrorCategory>(
  Object.entries(ERROR_STATUS).map(([category, status]) => [status, category as ErrorCategory]),
);

/**
 * Errors raised by Fastify itself, before a request reaches Nest (body parsing, limits), in the
 * envelope's words.
 */
export const FASTIFY_ERRORS: Record<string, ApiError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: new ApiError(
    'unsupported_media_type',
    'Request bodies must be sent as Content-Type: application/json',
    { code: 'UNSUPPORTED_MEDIA_TYPE' },
  ),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: new ApiError(
    'validation_error',
    'The Content-Length header does not match the body',
    { code: 'INVALID_CONTENT_LENGTH' },
  ),
  FST_ERR_CTP_BODY_TOO_LARGE: new ApiError(
    'payload_too_large',
    'Request bodies may be at most 100 KB (1 MB for POST /v0/usageEvents)',
    { code: 'PAYLOAD_TOO_LARGE' },
  ),
  FST_ERR_CTP_EMPTY_JSON_BODY: new ApiError(
    'validation_error',
    'The body is empty but Content-Type says application/json; send a JSON object',
    { code: 'MALFORMED_JSON' },
  ),
  FST_ERR_CTP_INVALID_JSON_BODY: new ApiError('validation_error', 'The body is not valid JSON', {
    code: 'MALFORMED_JSON',
  }),
};

/** An unexpected error: nothing of it reaches the client but its category. */
function internal(category: ErrorCategory, requestId: string): ErrorResponse {
  const response = toErrorResponse(new ApiError(category, 'Internal server error'), requestId);
  return { ...response, unexpected: true };
}

function httpExceptionMessage(err: HttpException): string {
  const response = err.getResponse();
  const raw =
    typeof response === 'string'
      ? response
      : ((response as { message?: unknown }).message ?? err.message);
  return Array.isArray(raw) ? raw.join('; ') : typeof raw === 'string' ? raw : err.message;
}

/**
 * Maps anything thrown anywhere (services, Nest, Fastify, the database driver) to one status,
 * envelope and header set. Nothing of an unexpected error reaches the client but its category.
 */
export function toErrorResponse(err: unknown, requestId: string): ErrorResponse {
  if (err instanceof ApiError) {
    return {
      status: err.status,
      body: {
        error: err.category,
        ...(err.code ? { code: err.code } : {}),
        message: err.message,
        ...(err.errors ? { errors: err.errors } : {}),
        requestId,
      },
      headers: err.headers ?? {},
      unexpected: false,
    };
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    // Fastify's own errors reach here as HttpExceptions: give them the envelope's words.
    const known = Object.values(FASTIFY_ERRORS).find((e) => e.status === status && status !== 400);
    if (known) return toErrorResponse(known, requestId);
    const category =
      STATUS_CATEGORY.get(status) ?? (status >= 500 ? 'internal_error' : 'validation_error');
    if (status >= 500) return internal(category, requestId);
    return toErrorResponse(new ApiError(category, httpExceptionMessage(err)), requestId);
  }
  const fastifyCode = driverCode(err);
  if (fastifyCode && Object.hasOwn(FASTIFY_ERRORS, fastifyCode)) {
    return toErrorResponse(FASTIFY_ERRORS[fastifyCode], requestId);
  }
  if (
    (err as Error)?.name === 'SyntaxError' &&
    (err as { statusCode?: number }).statusCode === 400
  ) {
    return toErrorResponse(FASTIFY_ERRORS.FST_ERR_CTP_INVALID_JSON_BODY, requestId);
  }
  if (isDatabaseUnavailable(err)) {
    return { ...toErrorResponse(new ServiceUnavailableError(), requestId), unexpected: true };
  }
  // Other Fastify errors that carry a client status (for example a prototype-poisoning body).
  const statusCode = (err as { statusCode?: unknown })?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const category = STATUS_CATEGORY.get(statusCode) ?? 'validation_error';
    return toErrorResponse(
      new ApiError(category, err instanceof Error ? err.message : 'Bad request'),
      requestId,
    );
  }
  return internal('internal_error', requestId);
}
