/** The categories of API.md section 3, each with its HTTP status. */
export const ERROR_STATUS = {
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_error: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCategory = keyof typeof ERROR_STATUS;

export interface FieldError {
  /** A path into the request: `name`, `tax.rate`, `prices[2]`, `query.limit`. */
  field: string;
  /** A lower_snake code a program can act on: `required`, `invalid_decimal`, `unknown_field`. */
  code: string;
  message: string;
}

export interface ApiErrorOptions {
  code?: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
}

/**
 * The one error type services throw. The exception filter turns it into the envelope of API.md
 * section 3; services never import Nest's HttpException.
 */
export class ApiError extends Error {
  readonly code?: string;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;

  constructor(
    readonly category: ErrorCategory,
    message: string,
    options: ApiErrorOptions = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.code = options.code;
    this.errors = options.errors;
    this.headers = options.headers;
  }

  get status(): number {
    return ERROR_STATUS[this.category];
  }
}

/** 400 with one entry per problem; the top-level code is the first problem's, in upper case. */
export class ValidationFailedError extends ApiError {
  constructor(errors: FieldError[], message = 'Request validation failed', code?: string) {
    super('validation_error', message, {
      errors,
      code: code ?? (errors[0] ? errors[0].code.toUpperCase() : undefined),
    });
  }

  /** A single-field validation error, for rules checked in services. */
  static field(field: string, code: string, message: string, topCode?: string) {
    return new ValidationFailedError(
      [{ field, code, message }],
      'Request validation failed',
      topCode,
    );
  }
}

export class NotFoundError extends ApiError {
  constructor(resource: string, id: string) {
    super('not_found', `No such ${resource}: '${id}'`, { code: 'RESOURCE_NOT_FOUND' });
  }
}

export class ForbiddenError extends ApiError {
  constructor(message: string, code = 'FORBIDDEN') {
    super('forbidden', message, { code });
  }
}

export class ConflictError extends ApiError {
  constructor(code: string, message: string) {
    super('conflict', message, { code });
  }
}

export class UnauthorizedError extends ApiError {
  constructor(message = 'A valid API key is required: send Authorization: Bearer <API key>') {
    super('unauthorized', message, {
      code: 'INVALID_API_KEY',
      headers: { 'WWW-Authenticate': 'Bearer realm="billing-api"' },
    });
  }
}

export class ServiceUnavailableError extends ApiError {
  constructor(message = 'The service cannot reach its database; try again shortly') {
    super('service_unavailable', message, { headers: { 'Retry-After': '1' } });
  }
}
