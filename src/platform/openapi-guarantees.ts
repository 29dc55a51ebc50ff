import type {
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { isAnyId } from '../common/ids';
import type { ErrorCause } from './api-docs';
import { badRequestCauses, addErrorResponse, DATABASE_DOWN, PLATFORM } from './openapi-errors';
import {
  closeRequestSchemas,
  formatTimestamps,
  nullableReferences,
  returnsResource,
} from './openapi-schemas';
import { isRateLimitExempt } from './rate-limit';

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

const integer = (description: string): HeaderObject => ({
  description,
  schema: { type: 'integer' },
});
const text = (description: string): HeaderObject => ({ description, schema: { type: 'string' } });

const HEADERS: Record<string, HeaderObject> = {
  'RateLimit-Limit': integer(
    'Requests allowed per second for this API key (RATE_LIMIT_PER_SECOND)',
  ),
  'RateLimit-Remaining': integer('Requests left in the current one-second window'),
  'RateLimit-Reset': integer('Seconds until the window resets'),
  'Retry-After': integer('Seconds to wait before retrying'),
  'WWW-Authenticate': text('The scheme to authenticate with: `Bearer realm="billing-api"`'),
  ETag: text('The version of this resource; send it back in If-Match to update safely'),
  'Idempotent-Replayed': {
    description:
      '`true` when this is the stored response to an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
  'Original-Request-Id': text(
    'On a replay: the X-Request-Id of the request whose response this is',
  ),
};

/** Header parameters, written inline on each operation so a reader sees them without a $ref. */
const PARAMETERS: Record<string, Pick<ParameterObject, 'description' | 'schema'>> = {
  'Idempotency-Key': {
    description:
      'Makes a retry safe: the first response for this key (1-255 printable ASCII characters, ' +
      'a UUID is a good choice) is stored for 24 hours and replayed to a retry with the same ' +
      'method, path and body. The same key with another request: 422; while the first runs: 409.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[ -~]{1,255}$' },
  },
  'If-Match': {
    description:
      'The ETag you last read: the write happens only if the resource has not changed since (412 otherwise)',
    schema: { type: 'string' },
  },
  'If-None-Match': {
    description: 'The ETag you hold: 304 Not Modified without a body when it is still current',
    schema: { type: 'string' },
  },
};

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

/**
 * Documents the platform guarantees of docs/api.md §3 and §6 on every operation, so that no
 * controller has to: the public routes' empty security, every status the platform itself can
 * answer (400, 408, 413 and 415 for a body, 429, 431, 500, 503) with an example body of its own,
 * rate-limit headers, Idempotency-Key (409, 422), If-Match (412), If-None-Match (304), and ETag
 * on single-resource responses.
 */
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

      const platform = (status: string, ...more: ErrorCause[]) =>
        addErrorResponse(operation, status, PLATFORM[status].description, [
          ...PLATFORM[status].causes,
          ...more,
        ]);
      // Fastify reads a body on POST, PATCH and DELETE (none of GET), and refuses it there.
      if (write) {
        platform('413');
        platform('415');
      }
      platform('400', ...badRequestCauses(document, method, operation));
      if (api && write) {
        addParameter(operation, 'Idempotency-Key');
        platform('409');
        platform('422');
      }
      if (api && (method === 'patch' || method === 'delete')) {
        addParameter(operation, 'If-Match');
        platform('412');
      }
      // 304 needs an ETag, which only single-resource answers carry (a list under an id has none).
      if (api && method === 'get' && returnsResource(document, operation.responses['200'])) {
        addParameter(operation, 'If-None-Match');
        operation.responses['304'] ??= {
          description: 'Not modified: If-None-Match holds the current ETag',
          headers: { ETag: ref('ETag') },
        };
      }
      if (limited) platform('429');
      // Refused by the HTTP layer before routing, on any route (src/platform/connections.ts).
      platform('408');
      platform('431');
      platform('500');
      platform('503', ...(api ? [DATABASE_DOWN] : []));
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
      const body = operation.requestBody;
      if (body && !('$ref' in body)) {
        // PATCH changes only the fields sent: no body at all (or `{}`) changes nothing and answers 200.
        if (method === 'patch') body.required = false;
        closeRequestSchemas(document, body.content['application/json']?.schema);
        // A request example that names a resource by id works only with one of the reader's own
        // ids: its summary says which field to replace (Swagger UI's "Try it out" sends it as is).
        for (const example of Object.values(body.content['application/json']?.examples ?? {})) {
          if ('$ref' in example || /replace/i.test(example.summary ?? '')) continue;
          const fields = idFieldsOf(example.value);
          if (fields.length > 0) {
            example.summary = `${example.summary ?? 'Example'} (replace ${fields.join(', ')} with ids of yours)`;
          }
        }
      }

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
        if (returnsResource(document, response)) headers.ETag ??= ref('ETag');
        if (api && write) {
          headers['Idempotent-Replayed'] ??= ref('Idempotent-Replayed');
          headers['Original-Request-Id'] ??= ref('Original-Request-Id');
        }
      }
    }
  }
  return document;
}

/** Adds a header parameter of PARAMETERS unless the controller documents it already. */
function addParameter(operation: OperationObject, name: keyof typeof PARAMETERS): void {
  const list = operation.parameters ?? [];
  const header = name.toLowerCase();
  if (list.some((p) => !('$ref' in p) && p.in === 'header' && p.name.toLowerCase() === header)) {
    return;
  }
  operation.parameters = [...list, { name, in: 'header', required: false, ...PARAMETERS[name] }];
}
