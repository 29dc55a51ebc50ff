import { ID_PREFIXES, NamedResource, RESOURCE_NAMES, isIdOf } from '../ids';

/** The categories of docs/api.md §3, each with its HTTP status. */
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

/** docs/api.md §3: at most this many entries in `errors`; the message says when more were found. */
export const MAX_FIELD_ERRORS = 100;
/** A field path echoes the client's own keys: longer ones are cut, so an answer stays small. */
export const MAX_FIELD_PATH_LENGTH = 200;

export interface FieldError {
  /** A path into the request: `name`, `tax.rate`, `prices[2]`, `query.limit`. */
  field: string;
  /** A lower_snake code a program can act on: `required`, `invalid_decimal`, `unknown_field`. */
  code: string;
  message: string;
}

/**
 * The one error type services throw. The exception filter turns it into the envelope of docs/api.md
 * §3; services never import Nest's HttpException.
 */
export class ApiError extends Error {
  readonly code?: string;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;

  constructor(
    readonly category: ErrorCategory,
    message: string,
    options: { code?: string; errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    const errors = options.errors;
    const more = errors && errors.length > MAX_FIELD_ERRORS ? errors.length : 0;
    super(
      more > 0
        ? `${message} (${more} problems were found; the first ${MAX_FIELD_ERRORS} are listed)`
        : message,
    );
    this.name = new.target.name;
    this.code = options.code;
    // Bounded here, where every error with field entries is made: one small body however many
    // problems a request has (a 100 KB body of unknown fields would otherwise answer ~1 MB,
    // and an Idempotency-Key would store it for 24 hours).
    this.errors = errors?.slice(0, MAX_FIELD_ERRORS).map((error) => {
      const field = [...error.field];
      if (field.length <= MAX_FIELD_PATH_LENGTH) return error;
      return { ...error, field: `${field.slice(0, MAX_FIELD_PATH_LENGTH - 1).join('')}…` };
    });
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

/**
 * 404 for an id that names nothing of the caller's. The id is echoed only when it has the shape
 * of an id of this resource: whatever else a client put in its place (an account number, an API
 * key) never appears in an error (docs/api.md §5.5), and the message is then `No such <resource>`.
 */
export class NotFoundError extends ApiError {
  constructor(resource: NamedResource, id: string) {
    const name = RESOURCE_NAMES[resource];
    super(
      'not_found',
      isIdOf(ID_PREFIXES[resource], id) ? `No such ${name}: '${id}'` : `No such ${name}`,
      { code: 'RESOURCE_NOT_FOUND' },
    );
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
