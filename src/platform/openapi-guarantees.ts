import type {
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

const ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelope' };
const json = { 'application/json': { schema: ENVELOPE } };
const ref = (kind: 'headers' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

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

const PARAMETERS: Record<string, ParameterObject> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the first response for this key (1-255 printable ASCII characters, ' +
      'a UUID is a good choice) is stored for 24 hours and replayed to a retry with the same ' +
      'method, path and body. The same key with another request: 422; while the first runs: 409.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
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

function isResourceSchema(
  document: OpenAPIObject,
  schema: SchemaObject | ReferenceObject | undefined,
): boolean {
  if (!schema) return false;
  const resolved =
    '$ref' in schema ? document.components?.schemas?.[schema.$ref.split('/').pop() ?? ''] : schema;
  const properties = resolved && !('$ref' in resolved) ? resolved.properties : undefined;
  return !!properties && 'id' in properties && 'object' in properties;
}

function addParameter(operation: OperationObject, name: string): void {
  const parameters = (operation.parameters ??= []);
  const header = PARAMETERS[name].name.toLowerCase();
  const present = parameters.some(
    (p) => !('$ref' in p) && p.in === 'header' && p.name.toLowerCase() === header,
  );
  // Inline, so a reader of one operation sees the header's name without resolving a $ref.
  if (!present) parameters.push({ ...PARAMETERS[name] });
}

function addResponse(operation: OperationObject, status: string, response: ResponseObject): void {
  operation.responses[status] ??= response;
}

/**
 * Documents the platform guarantees of docs/api.md §6 on every /v0 operation, so that no
 * controller has to: rate-limit headers, 429 with Retry-After, Idempotency-Key (409, 422),
 * If-Match (412), If-None-Match (304) and ETag on single-resource responses.
 */
export function documentGuarantees(document: OpenAPIObject): OpenAPIObject {
  const components = (document.components ??= {});
  components.headers = { ...components.headers, ...HEADERS };
  components.parameters = { ...components.parameters, ...PARAMETERS };

  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/v0/')) continue;
    for (const method of ['get', 'post', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const write = method !== 'get';
      if (write) {
        addParameter(operation, 'IdempotencyKey');
        addResponse(operation, '409', {
          description:
            'Conflict; IDEMPOTENCY_KEY_IN_USE: a request with this Idempotency-Key is still running',
          content: json,
        });
        addResponse(operation, '422', {
          description: 'idempotency_error: this Idempotency-Key was used for a different request',
          content: json,
        });
      }
      if (method === 'patch' || method === 'delete') {
        addParameter(operation, 'IfMatch');
        addResponse(operation, '412', {
          description: 'precondition_failed: If-Match does not match the current ETag',
          content: json,
        });
      }
      if (method === 'get' && path.includes('{')) {
        addParameter(operation, 'IfNoneMatch');
        addResponse(operation, '304', {
          description: 'Not modified: If-None-Match holds the current ETag',
        });
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response || '$ref' in response) continue;
        const headers = (response.headers ??= {});
        for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
          headers[name] ??= ref('headers', name);
        }
        if (status === '429') headers['Retry-After'] ??= ref('headers', 'Retry-After');
        if (!status.startsWith('2')) continue;
        if (isResourceSchema(document, response.content?.['application/json']?.schema)) {
          headers.ETag ??= ref('headers', 'ETag');
        }
        if (write) {
          headers['Idempotent-Replayed'] ??= ref('headers', 'Idempotent-Replayed');
          headers['Original-Request-Id'] ??= ref('headers', 'Original-Request-Id');
        }
      }
    }
  }
  return document;
}
