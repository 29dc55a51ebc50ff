import { applyDecorators } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiHeader,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
} from '@nestjs/swagger';
import type {
  ExampleObject,
  ReferenceObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ApiError, ERROR_STATUS, NotFoundError, UnauthorizedError } from '../common/errors';
import { ID_PREFIXES, NamedResource, RESOURCE_NAMES } from '../common/ids';
import { assertOwnMerchant } from '../common/merchant';
import { toErrorResponse } from './error-envelope';

/** The request id every documented error example carries. */
const EXAMPLE_REQUEST_ID = 'req_01JD3Y2Q6J8C4N1V9W5X7Z0REQ';

class FieldErrorDoc {
  @ApiProperty({ example: 'properties.unitPrice' })
  field: string;
  @ApiProperty({ example: 'invalid_decimal' })
  code: string;
  @ApiProperty({ example: 'must be a decimal string such as "0.25"' })
  message: string;
}

/** The error envelope of docs/api.md §3, for the OpenAPI document. */
export class ErrorEnvelope {
  @ApiProperty({ example: 'validation_error', enum: Object.keys(ERROR_STATUS) })
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
    description: 'For validation errors: one entry per problem (at most 100)',
  })
  errors?: FieldErrorDoc[];
  @ApiProperty({ example: EXAMPLE_REQUEST_ID, description: 'Same as the X-Request-Id header' })
  requestId: string;
}

/** One cause of an error response: a short summary and the error the API throws for it. */
export type ErrorCause = [summary: string, error: ApiError];

/**
 * Adds one example per cause to `examples`, unless it shows a body already there: the body the
 * API sends for it, made by the function that makes the real answer (toErrorResponse), so an
 * example cannot drift from what is sent. Named by the error's code (or its first field
 * error's), made unique.
 */
export function addExamples(
  examples: Record<string, ExampleObject | ReferenceObject>,
  causes: ErrorCause[],
): Record<string, ExampleObject | ReferenceObject> {
  const shown = new Set(
    Object.values(examples).map((e) => ('value' in e ? JSON.stringify(e.value) : '')),
  );
  for (const [summary, error] of causes) {
    const value = toErrorResponse(error, EXAMPLE_REQUEST_ID).body;
    if (shown.has(JSON.stringify(value))) continue;
    const base = error.errors?.[0]?.code ?? error.code ?? error.category;
    let name = base;
    for (let i = 2; name in examples; i++) name = `${base}_${i}`;
    examples[name] = { summary, value };
  }
  return examples;
}

/**
 * An error response documented with one example per cause, each the body the API sends for it.
 * Every cause must have the same status (the first one's).
 */
export function ApiErrorResponse(description: string, ...causes: ErrorCause[]): MethodDecorator {
  const status = causes[0][1].status;
  const other = causes.find(([, error]) => error.status !== status);
  if (other) throw new Error(`ApiErrorResponse: "${other[0]}" is not a ${status}`);
  return ApiResponse({
    status,
    description,
    type: ErrorEnvelope,
    examples: addExamples({}, causes) as Record<string, { summary: string; value: unknown }>,
  });
}

/**
 * What every authenticated route shares: the bearer scheme, X-Request-Id and 401. The platform's
 * other answers (400, 413, 415, 429, 500, 503, and the idempotency and ETag statuses) are
 * documented on every route by documentGuarantees (openapi-guarantees.ts).
 */
export function ApiCommonResponses(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiBearerAuth(),
    ApiHeader({
      name: 'X-Request-Id',
      required: false,
      description:
        'Echoed back when it is 1-128 of [A-Za-z0-9._-] holding no sk_live_, sk_test_ or whsec_ ' +
        '(in any case); any other value is accepted too, and replaced by a req_ id the service ' +
        'makes (so the schema refuses nothing the service accepts)',
      schema: { type: 'string' },
    }),
    ApiErrorResponse(
      'unauthorized: no API key, a malformed Authorization header, or an unknown or revoked key ' +
        '(with WWW-Authenticate: Bearer)',
      // The causes of src/auth/api-key.guard.ts.
      [
        'No Authorization header',
        new UnauthorizedError('No API key: send Authorization: Bearer <API key>'),
      ],
      [
        'An unknown or revoked key',
        new UnauthorizedError('Invalid API key: it is unknown or has been revoked'),
      ],
      [
        'Another scheme than Bearer',
        new UnauthorizedError('Malformed Authorization header: expected Bearer <API key>'),
      ],
    ),
  );
}

/** 404 for routes that take a resource id. */
export function ApiNotFound(resource: NamedResource): MethodDecorator {
  const name = RESOURCE_NAMES[resource];
  const exampleId = `${ID_PREFIXES[resource]}_01JD3Y2Q6J8C4N1V9W5X7Z0ABC`;
  return ApiErrorResponse(
    `not_found: no such ${name} in your organization (an id of another organization, or ` +
      'of the wrong shape, answers the same)',
    [`No such ${name}`, new NotFoundError(resource, exampleId)],
  );
}

/** The error a call throws, for examples made by the code that answers. */
export function thrownBy(call: () => unknown): ApiError {
  try {
    call();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected the call to throw an ApiError');
}

/** The caller's organization in examples, and another one's. */
export const EXAMPLE_ORGANIZATION_ID = 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ORG';
const OTHER_ORGANIZATION_ID = 'org_01JD3Y2Q6J8C4N1V9W5X7Z0OTH';

/** 403 for a body or filter whose merchantId is another organization (docs/api.md §2). */
export const ApiForbiddenMerchant = (): MethodDecorator =>
  ApiErrorResponse(
    'forbidden: merchantId is another organization (leave it out: it defaults to yours)',
    [
      'merchantId of another organization',
      thrownBy(() => assertOwnMerchant(EXAMPLE_ORGANIZATION_ID, OTHER_ORGANIZATION_ID)),
    ],
  );
