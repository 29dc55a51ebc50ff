import type {
  ExampleObject,
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ApiError, ServiceUnavailableError, ValidationFailedError } from '../common/errors';
import { assertIfMatch } from '../common/etag';
import { isAnyId } from '../common/ids';
import { ErrorCause, errorExample, thrownBy } from './api-docs';
import { parseIdempotencyKey } from './idempotency/idempotency-key';
import { isRateLimitExempt } from './rate-limit';

const ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelope' };
const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

const HEADERS: Record<string, HeaderObject> = {
  'RateLimit-Limit': {
    description: 'Requests allowed per second for this API key (RATE_LIMIT_PER_SECOND)',
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current one-second window',
    schema: { type: 'integer' },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window resets',
    schema: { type: 'integer' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  'WWW-Authenticate': {
    description: 'The scheme to authenticate with: `Bearer realm="billing-api"`',
    schema: { type: 'string' },
  },
  ETag: {
    description: 'The version of this resource; send it back in If-Match to update safely',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this is the stored response to an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
  'Original-Request-Id': {
    description: 'On a replay: the X-Request-Id of the request whose response this is',
    schema: { type: 'string' },
  },
};

/** Header parameters, written inline on each operation so a reader sees them without a $ref. */
const PARAMETERS: Record<string, ParameterObject> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the first response for this key (1-255 printable ASCII characters, ' +
      'a UUID is a good choice) is stored for 24 hours and replayed to a retry with the same ' +
      'method, path and body. The same key with another request: 422; while the first runs: 409.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[ -~]{1,255}$' },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'The ETag you last read: the write happens only if the resource has not changed since (412 otherwise)',
    schema: { type: 'string' },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'The ETag you hold: 304 Not Modified without a body when it is still current',
    schema: { type: 'string' },
  },
};

const invalid = (field: string, code: string, message: string) =>
  new ValidationFailedError([{ field, code, message }]);

/**
 * What the platform answers on any route, by status: its description, its causes (each an
 * example body), and the headers it carries. The causes that depend on the operation (which
 * field is required, whether it lists) are added by badRequestCauses.
 */
const PLATFORM: Record<string, { description: string; causes: ErrorCause[]; headers?: string[] }> =
  {
    '409': {
      description:
        'conflict: IDEMPOTENCY_KEY_IN_USE, a request with this Idempotency-Key is still running',
      causes: [
        [
          'A request with this Idempotency-Key is still running',
          new ApiError(
            'conflict',
            'A request with this Idempotency-Key is still being processed; retry after it finishes',
            { code: 'IDEMPOTENCY_KEY_IN_USE' },
          ),
        ],
      ],
      // IDEMPOTENCY_KEY_IN_USE says when to retry (the operation's own 409s do not).
      headers: ['Retry-After'],
    },
    '412': {
      description: 'precondition_failed: If-Match does not match the current ETag',
      causes: [
        ['The resource changed since it was read', thrownBy(() => assertIfMatch('"x"', {}))],
      ],
    },
    '408': {
      description:
        'request_timeout: the request did not arrive in full within REQUEST_TIMEOUT_SECONDS (30 by default); the connection is closed',
      causes: [
        [
          'A body that stopped arriving',
          new ApiError('request_timeout', 'The request did not arrive in full within 30 seconds', {
            code: 'REQUEST_TIMEOUT',
          }),
        ],
      ],
    },
    '431': {
      description: 'headers_too_large: the request headers are larger than 16 KB',
      causes: [
        [
          'Headers over 16 KB',
          new ApiError('headers_too_large', 'The request headers are larger than 16 KB', {
            code: 'HEADERS_TOO_LARGE',
          }),
        ],
      ],
    },
    '413': {
      description:
        'payload_too_large: the body is larger than 100 KB (1 MB for POST /v0/usageEvents)',
      causes: [
        [
          'A body over 100 KB',
          new ApiError(
            'payload_too_large',
            'Request bodies may be at most 100 KB (1 MB for POST /v0/usageEvents)',
            {
              code: 'PAYLOAD_TOO_LARGE',
            },
          ),
        ],
      ],
    },
    '415': {
      description:
        'unsupported_media_type: a body that is not `application/json`, or JSON in another charset than UTF-8',
      causes: [
        [
          'A body sent as text/plain',
          new ApiError(
            'unsupported_media_type',
            'Request bodies must be sent as Content-Type: application/json',
            { code: 'UNSUPPORTED_MEDIA_TYPE' },
          ),
        ],
      ],
    },
    '422': {
      description: 'idempotency_error: this Idempotency-Key was used for a different request',
      causes: [
        [
          'The same key with another body',
          new ApiError(
            'idempotency_error',
            'This Idempotency-Key was already used with a different body; use a new key for a new request',
            { code: 'IDEMPOTENCY_KEY_REUSED' },
          ),
        ],
      ],
    },
    '429': {
      description:
        'rate_limited: more requests in this second than RATE_LIMIT_PER_SECOND allows for this API key',
      causes: [
        [
          'Past the limit',
          new ApiError(
            'rate_limited',
            'Too many requests: the limit is 100 per second per API key; retry in 1 second',
          ),
        ],
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
      causes: [
        [
          'The instance is shutting down',
          new ApiError(
            'service_unavailable',
            'The service is shutting down; send the request again',
            { code: 'SHUTTING_DOWN' },
          ),
        ],
      ],
      headers: ['Retry-After'],
    },
  };

/** A /v0 route reads the database: it also answers 503 when the database does not answer. */
const DATABASE_DOWN: ErrorCause = ['The database does not answer', new ServiceUnavailableError()];

function resolve(
  document: OpenAPIObject,
  schema: SchemaObject | ReferenceObject | undefined,
): SchemaObject | undefined {
  if (!schema) return undefined;
  if (!('$ref' in schema)) return schema;
  const resolved = document.components?.schemas?.[schema.$ref.split('/').pop() ?? ''];
  return resolved && !('$ref' in resolved) ? resolved : undefined;
}

function isResourceSchema(
  document: OpenAPIObject,
  schema: SchemaObject | ReferenceObject | undefined,
): boolean {
  const properties = resolve(document, schema)?.properties;
  return !!properties && 'id' in properties && 'object' in properties;
}

function bodySchema(document: OpenAPIObject, operation: OperationObject): SchemaObject | undefined {
  const body = operation.requestBody;
  if (!body || '$ref' in body) return undefined;
  return resolve(document, body.content['application/json']?.schema);
}

/** The 400s an operation can answer whatever its DTO's own rules, each as the API words it. */
function badRequestCauses(
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
function addErrorResponse(
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
  const examples: Record<string, ExampleObject | ReferenceObject> = {};
  if (media.example !== undefined) {
    const example = media.example as { code?: string; error?: string };
    examples[example.code ?? example.error ?? 'example'] = { value: example };
    delete media.example;
  }
  Object.assign(examples, media.examples);
  const bodies = new Set(
    Object.values(examples).map((e) => ('value' in e ? JSON.stringify(e.value) : '')),
  );
  for (const [summary, error] of causes) {
    const example = errorExample(error, summary);
    if (bodies.has(JSON.stringify(example.value))) continue;
    const base = error.errors?.[0]?.code ?? error.code ?? error.category;
    let name = base;
    for (let i = 2; name in examples; i++) name = `${base}_${i}`;
    examples[name] = example;
  }
  media.examples = examples;
}

/**
 * The API rejects every field a request body does not define (docs/api.md §1): the schemas of
 * request bodies, and the objects nested in them, say so with `additionalProperties: false`.
 */
function closeRequestSchemas(
  document: OpenAPIObject,
  schema: SchemaObject | ReferenceObject | undefined,
  seen = new Set<SchemaObject>(),
): void {
  const resolved = resolve(document, schema);
  if (!resolved || seen.has(resolved)) return;
  seen.add(resolved);
  if (resolved.properties && resolved.additionalProperties === undefined) {
    resolved.additionalProperties = false;
  }
  for (const child of [
    ...Object.values(resolved.properties ?? {}),
    ...(resolved.oneOf ?? []),
    ...(resolved.anyOf ?? []),
    ...(resolved.allOf ?? []),
    ...(resolved.items ? [resolved.items] : []),
  ]) {
    closeRequestSchemas(document, child, seen);
  }
}

/**
 * Timestamps are ISO 8601 UTC with milliseconds (docs/api.md §1): every string property of a
 * schema whose name ends in `At` (`createdAt`, `nextRetryAt`, ...) says `format: date-time`,
 * which the Swagger plugin cannot read from a `string` field.
 */
function formatTimestamps(document: OpenAPIObject): void {
  for (const schema of Object.values(document.components?.schemas ?? {})) {
    if ('$ref' in schema) continue;
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if ('$ref' in property || !/[a-z]At$/.test(name)) continue;
      if (property.type === 'string' && property.format === undefined) {
        property.format = 'date-time';
      }
    }
  }
}

/**
 * Documents the platform guarantees of docs/api.md §3 and §6 on every operation, so that no
 * controller has to: the public routes' empty security, every status the platform itself can
 * answer (400, 408, 413 and 415 for a body, 429, 431, 500, 503) with an example body of its own,
 * rate-limit headers, Idempotency-Key (409, 422), If-Match (412), If-None-Match (304), and ETag
 * on single-resource responses.
 */
/**
 * In OpenAPI 3.0 `nullable: true` admits null only beside a `type` in the same schema object, and
 * `allOf` still applies to null: `{ type: 'object', nullable: true, allOf: [{ $ref }] }`, which the
 * Swagger plugin writes for a nullable object property, refuses null in every strict client (the
 * referenced schema refuses it). Such a schema is replaced by a copy of the one it names, with
 * `nullable: true` beside its `type`; any other nullable schema without a type stops the document
 * from being built, so the class of mistake cannot reach a client.
 */
function nullableReferences(document: OpenAPIObject): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, SchemaObject>;
  const inlined = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const schema = node as SchemaObject & ReferenceObject;
    if (schema.nullable === true && (schema.type === undefined || schema.allOf || schema.$ref)) {
      const only = schema.allOf?.length === 1 ? schema.allOf[0] : schema.$ref ? schema : undefined;
      const name = only && '$ref' in only ? only.$ref.split('/').pop() : undefined;
      const target = name ? schemas[name] : undefined;
      if (!target || target.type === undefined) {
        throw new Error(
          `OpenAPI: ${JSON.stringify(node)} is nullable without a type, so strict clients refuse null`,
        );
      }
      inlined.add(name!);
      const { allOf: _allOf, $ref: _ref, type: _type, ...rest } = schema;
      for (const key of Object.keys(schema)) delete (node as Record<string, unknown>)[key];
      Object.assign(schema, structuredClone(target), rest, { nullable: true });
    }
    Object.values(node).forEach(visit);
  };
  visit(document.paths);
  visit(schemas);
  // A schema now copied everywhere it was named leaves the document.
  const text = JSON.stringify(document);
  for (const name of inlined) {
    if (!text.includes(`"#/components/schemas/${name}"`)) delete schemas[name];
  }
}

/** The fields of an example value (at any depth) that hold a resource id. */
function idFieldsOf(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return isAnyId(value) ? [path || 'the id'] : [];
  if (Array.isArray(value)) {
    return value.some((item) => typeof item === 'string' && isAnyId(item))
      ? [path]
      : value.flatMap((item, i) => idFieldsOf(item, `${path}[${i}]`));
  }
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) =>
      idFieldsOf(item, path ? `${path}.${key}` : key),
    );
  }
  return [];
}

export function documentGuarantees(document: OpenAPIObject): OpenAPIObject {
  const components = (document.components ??= {});
  components.headers = { ...components.headers, ...HEADERS };
  formatTimestamps(document);
  nullableReferences(document);
  // Every /v0 route needs the bearer key; the public ones say so with an empty list.
  document.security = [{ bearer: [] }];

  for (const [path, item] of Object.entries(document.paths)) {
    const api = path.startsWith('/v0/');
    const limited = !isRateLimitExempt(path);
    for (const method of ['get', 'post', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const write = method !== 'get';
      if (!api) operation.security ??= [];

      // Fastify reads a body on POST, PATCH and DELETE (none of GET), and refuses it there.
      if (write) {
        addErrorResponse(operation, '413', PLATFORM['413'].description, PLATFORM['413'].causes);
        addErrorResponse(operation, '415', PLATFORM['415'].description, PLATFORM['415'].causes);
      }
      addErrorResponse(
        operation,
        '400',
        'validation_error: a field, a query parameter or a header is invalid; `errors` names each problem',
        badRequestCauses(document, method, operation),
      );
      if (api && write) {
        operation.parameters = addParameter(operation.parameters, 'IdempotencyKey');
        addErrorResponse(operation, '409', PLATFORM['409'].description, PLATFORM['409'].causes);
        addErrorResponse(operation, '422', PLATFORM['422'].description, PLATFORM['422'].causes);
      }
      if (api && (method === 'patch' || method === 'delete')) {
        operation.parameters = addParameter(operation.parameters, 'IfMatch');
        addErrorResponse(operation, '412', PLATFORM['412'].description, PLATFORM['412'].causes);
      }
      // 304 needs an ETag, which only single-resource answers carry (a list under an id has none).
      const ok = operation.responses['200'];
      const single =
        !!ok &&
        !('$ref' in ok) &&
        isResourceSchema(document, ok.content?.['application/json']?.schema);
      if (api && method === 'get' && single) {
        operation.parameters = addParameter(operation.parameters, 'IfNoneMatch');
        operation.responses['304'] ??= {
          description: 'Not modified: If-None-Match holds the current ETag',
          headers: { ETag: ref('ETag') },
        };
      }
      if (limited) {
        addErrorResponse(operation, '429', PLATFORM['429'].description, PLATFORM['429'].causes);
      }
      // Refused by the HTTP layer before routing, on any route (src/platform/connections.ts).
      addErrorResponse(operation, '408', PLATFORM['408'].description, PLATFORM['408'].causes);
      addErrorResponse(operation, '431', PLATFORM['431'].description, PLATFORM['431'].causes);
      addErrorResponse(operation, '500', PLATFORM['500'].description, PLATFORM['500'].causes);
      addErrorResponse(operation, '503', PLATFORM['503'].description, [
        ...PLATFORM['503'].causes,
        ...(api ? [DATABASE_DOWN] : []),
      ]);
      // Swagger UI puts a parameter's example into "Try it out": an example filter (another
      // organization's merchantId, an event id) would filter the list, or answer 403 or 400.
      for (const parameter of operation.parameters ?? []) {
        if ('$ref' in parameter || parameter.in !== 'query') continue;
        delete parameter.example;
        if (parameter.schema && !('$ref' in parameter.schema)) delete parameter.schema.example;
      }
      // Every error response carries named examples (a controller's single `example` included).
      for (const status of Object.keys(operation.responses).filter((s) => Number(s) >= 400)) {
        addErrorResponse(operation, status, '', []);
      }
      // A POST that takes no fields (rotateSecret) accepts no body, `{}` and an empty body alike
      // (docs/api.md §6): declared so, or a strict client refuses to send the `{}` it accepts.
      if (method === 'post' && !operation.requestBody) {
        operation.requestBody = {
          required: false,
          description: 'No fields: send no body, `{}`, or an empty body',
          content: {
            'application/json': {
              schema: { type: 'object', properties: {}, additionalProperties: false },
            },
          },
        };
      }
      // A request example that names a resource by id works only with one of the reader's own
      // ids: its summary says which field to replace (Swagger UI's "Try it out" sends it as is).
      const requestBody = operation.requestBody;
      if (requestBody && !('$ref' in requestBody)) {
        for (const example of Object.values(
          requestBody.content['application/json']?.examples ?? {},
        )) {
          if ('$ref' in example || /replace/i.test(example.summary ?? '')) continue;
          const fields = idFieldsOf(example.value);
          if (fields.length > 0) {
            example.summary = `${example.summary ?? 'Example'} (replace ${fields.join(', ')} with ids of yours)`;
          }
        }
      }
      // PATCH changes only the fields sent: no body at all (or `{}`) changes nothing and answers 200.
      const body = operation.requestBody;
      if (method === 'patch' && body && !('$ref' in body)) body.required = false;
      if (body && !('$ref' in body))
        closeRequestSchemas(document, body.content['application/json']?.schema);

      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response || '$ref' in response) continue;
        const headers = (response.headers ??= {});
        if (limited) {
          for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
            headers[name] ??= ref(name);
          }
        }
        for (const name of PLATFORM[status]?.headers ?? []) headers[name] ??= ref(name);
        if (status === '401') headers['WWW-Authenticate'] ??= ref('WWW-Authenticate');
        if (Object.keys(headers).length === 0) delete response.headers;
        if (!status.startsWith('2')) continue;
        if (isResourceSchema(document, response.content?.['application/json']?.schema)) {
          headers.ETag ??= ref('ETag');
        }
        if (api && write) {
          headers['Idempotent-Replayed'] ??= ref('Idempotent-Replayed');
          headers['Original-Request-Id'] ??= ref('Original-Request-Id');
        }
      }
    }
  }
  return document;
}

function addParameter(
  parameters: OperationObject['parameters'],
  name: keyof typeof PARAMETERS,
): NonNullable<OperationObject['parameters']> {
  const list = parameters ?? [];
  const header = PARAMETERS[name].name.toLowerCase();
  const present = list.some(
    (p) => !('$ref' in p) && p.in === 'header' && p.name.toLowerCase() === header,
  );
  return present ? list : [...list, { ...PARAMETERS[name] }];
}
