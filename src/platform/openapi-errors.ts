import type {
  OpenAPIObject,
  OperationObject,
  ResponseObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ApiError, ServiceUnavailableError, ValidationFailedError } from '../common/errors';
import { assertIfMatch } from '../common/etag';
import { ErrorCause, addExamples, thrownBy } from './api-docs';
import { parserError, requestTimeoutError, shuttingDownError } from './connections';
import { FASTIFY_ERRORS } from './error-envelope';
import { parseIdempotencyKey } from './idempotency/idempotency-key';
import { keyInUseError, keyReusedError } from './idempotency/idempotency.service';
import { bodySchema } from './openapi-schemas';
import { rateLimitedError } from './rate-limit';

// The error responses the platform itself can answer on any route, each with an example body
// made by the code that answers it. Applied by documentGuarantees.

const ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelope' };

const invalid = (field: string, code: string, message: string) =>
  new ValidationFailedError([{ field, code, message }]);

/**
 * What the platform answers on any route, by status: its description, its causes (each an
 * example body), and the headers it carries. The causes that depend on the operation (which
 * field is required, whether it lists) are added by badRequestCauses.
 */
export const PLATFORM: Record<
  string,
  { description: string; causes: ErrorCause[]; headers?: string[] }
> = {
  '400': {
    description:
      'validation_error: a field, a query parameter or a header is invalid; `errors` names each problem',
    causes: [],
  },
  '409': {
    description:
      'conflict: IDEMPOTENCY_KEY_IN_USE, a request with this Idempotency-Key is still running',
    causes: [['A request with this Idempotency-Key is still running', keyInUseError()]],
    // IDEMPOTENCY_KEY_IN_USE says when to retry (the operation's own 409s do not).
    headers: ['Retry-After'],
  },
  '412': {
    description: 'precondition_failed: If-Match does not match the current ETag',
    causes: [['The resource changed since it was read', thrownBy(() => assertIfMatch('"x"', {}))]],
  },
  '408': {
    description:
      'request_timeout: the request did not arrive in full within REQUEST_TIMEOUT_SECONDS (30 by default); the connection is closed',
    causes: [['A body that stopped arriving', requestTimeoutError(30)]],
  },
  '431': {
    description: 'headers_too_large: the request headers are larger than 16 KB',
    causes: [['Headers over 16 KB', parserError('HPE_HEADER_OVERFLOW')]],
  },
  '413': {
    description:
      'payload_too_large: the body is larger than 100 KB (1 MB for POST /v0/usageEvents)',
    causes: [['A body over 100 KB', FASTIFY_ERRORS.FST_ERR_CTP_BODY_TOO_LARGE]],
  },
  '415': {
    description:
      'unsupported_media_type: a body that is not `application/json`, or JSON in another charset than UTF-8',
    causes: [['A body sent as text/plain', FASTIFY_ERRORS.FST_ERR_CTP_INVALID_MEDIA_TYPE]],
  },
  '422': {
    description: 'idempotency_error: this Idempotency-Key was used for a different request',
    causes: [['The same key with another body', keyReusedError()]],
  },
  '429': {
    description:
      'rate_limited: more requests in this second than RATE_LIMIT_PER_SECOND allows for this API key',
    causes: [
      ['Past the limit', rateLimitedError({ max: 100, after: '1 second', ttl: 1000 }, true)],
    ],
    headers: ['Retry-After'],
  },
  '500': {
    description: 'internal_error: an unexpected failure; requestId finds it in the logs',
    causes: [['An unexpected failure', new ApiError('internal_error', 'Internal server error')]],
  },
  '503': {
    description:
      'service_unavailable: the service is shutting down (or, on a route that reads the database, cannot reach it); retry after Retry-After',
    causes: [['The instance is shutting down', shuttingDownError()]],
    headers: ['Retry-After'],
  },
};

/** A /v0 route reads the database: it also answers 503 when the database does not answer. */
export const DATABASE_DOWN: ErrorCause = [
  'The database does not answer',
  new ServiceUnavailableError(),
];

/** The 400s an operation can answer whatever its DTO's own rules, each as the API words it. */
export function badRequestCauses(
  document: OpenAPIObject,
  method: string,
  operation: OperationObject,
): ErrorCause[] {
  const causes: ErrorCause[] = [];
  const body = bodySchema(document, operation);
  if (body) {
    const required = body.required?.[0];
    if (required) {
      causes.push(['A required field is missing', invalid(required, 'required', 'is required')]);
    }
    causes.push([
      'A field this request does not take',
      invalid('colour', 'unknown_field', 'is not a field of this request'),
    ]);
    causes.push([
      'A body that is not JSON',
      new ApiError('validation_error', 'The body is not valid JSON', { code: 'MALFORMED_JSON' }),
    ]);
  }
  const lists = (operation.parameters ?? []).some((p) => !('$ref' in p) && p.name === 'limit');
  if (lists) {
    causes.push([
      'limit out of range',
      invalid('limit', 'out_of_range', 'must be a whole number from 1 to 100'),
    ]);
  } else {
    causes.push([
      'A query parameter this route does not take',
      invalid('expand', 'unknown_field', 'is not a query parameter of this route'),
    ]);
  }
  if (method !== 'get') {
    causes.push(['An invalid Idempotency-Key', thrownBy(() => parseIdempotencyKey(''))]);
  }
  return causes;
}

/**
 * Adds `causes` to the operation's response for their status: creates it when the controller
 * did not document it, else adds the examples to the controller's own (turning a single
 * `example` into named `examples`). Each status so ends with an example body of its own.
 */
export function addErrorResponse(
  operation: OperationObject,
  status: string,
  description: string,
  causes: ErrorCause[],
): void {
  let response = operation.responses[status] as ResponseObject | undefined;
  if (!response) {
    response = { description, content: { 'application/json': { schema: ENVELOPE } } };
    operation.responses[status] = response;
  } else if (status === '409' && description) {
    // The controller's conflicts, and the idempotency one every write can answer.
    response.description = `${response.description}; or ${description}`;
  }
  const media = ((response.content ??= {})['application/json'] ??= { schema: ENVELOPE });
  if (media.example !== undefined) {
    const example = media.example as { code?: string; error?: string };
    media.examples = {
      [example.code ?? example.error ?? 'example']: { value: example },
      ...media.examples,
    };
    delete media.example;
  }
  // A copy: a class-level decorator's examples may be shared by every operation of its class.
  media.examples = addExamples({ ...media.examples }, causes);
}
