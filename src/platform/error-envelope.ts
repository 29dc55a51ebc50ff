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
export interface ErrorBody {
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

/** Errors raised by Fastify itself, before a request reaches Nest (body parsing, limits). */
const FASTIFY_ERRORS: Record<string, { category: ErrorCategory; code?: string; message: string }> =
  {
    FST_ERR_CTP_INVALID_MEDIA_TYPE: {
      category: 'unsupported_media_type',
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Request bodies must be sent as Content-Type: application/json',
    },
    FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
      category: 'validation_error',
      code: 'INVALID_CONTENT_LENGTH',
      message: 'The Content-Length header does not match the body',
    },
    FST_ERR_CTP_BODY_TOO_LARGE: {
      category: 'payload_too_large',
      code: 'PAYLOAD_TOO_LARGE',
      message: 'Request bodies may be at most 100 KB (1 MB for POST /v0/usageEvents)',
    },
    FST_ERR_CTP_EMPTY_JSON_BODY: {
      category: 'validation_error',
      code: 'MALFORMED_JSON',
      message: 'The body is empty but Content-Type says application/json; send a JSON object',
    },
    FST_ERR_CTP_INVALID_JSON_BODY: {
      category: 'validation_error',
      code: 'MALFORMED_JSON',
      message: 'The body is not valid JSON',
    },
  };

function fromHttpException(err: HttpException): Omit<ErrorResponse, 'body'> & {
  body: Omit<ErrorBody, 'requestId'>;
} {
  const status = err.getStatus();
  const category =
    STATUS_CATEGORY.get(status) ?? (status >= 500 ? 'internal_error' : 'validation_error');
  const response = err.getResponse();
  const raw =
    typeof response === 'string'
      ? response
      : ((response as { message?: unknown }).message ?? err.message);
  const message = Array.isArray(raw) ? raw.join('; ') : typeof raw === 'string' ? raw : err.message;
  // Fastify's own errors reach here as HttpExceptions: give them the envelope's words.
  const known = Object.values(FASTIFY_ERRORS).find(
    (e) => e.category === category && ERROR_STATUS[category] !== 400,
  );
  if (known) {
    return {
      status,
      body: { error: category, code: known.code, message: known.message },
      headers: {},
      unexpected: false,
    };
  }
  return {
    status: ERROR_STATUS[category] ?? status,
    body: { error: category, message: status >= 500 ? 'Internal server error' : message },
    headers: {},
    unexpected: status >= 500,
  };
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
    const r = fromHttpException(err);
    return { ...r, body: { ...r.body, requestId } };
  }
  const fastifyCode = driverCode(err);
  if (fastifyCode && FASTIFY_ERRORS[fastifyCode]) {
    const known = FASTIFY_ERRORS[fastifyCode];
    return toErrorResponse(
      new ApiError(known.category, known.message, { code: known.code }),
      requestId,
    );
  }
  if (
    (err as Error)?.name === 'SyntaxError' &&
    (err as { statusCode?: number }).statusCode === 400
  ) {
    return toErrorResponse(
      new ApiError('validation_error', 'The body is not valid JSON', { code: 'MALFORMED_JSON' }),
      requestId,
    );
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
  return {
    status: 500,
    body: { error: 'internal_error', message: 'Internal server error', requestId },
    headers: {},
    unexpected: true,
  };
}
