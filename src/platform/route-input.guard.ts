import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import type { FastifyRequest } from 'fastify';
import { FieldError, NotFoundError, ValidationFailedError } from '../common/errors';
import { ID_PREFIXES, NamedResource, RESOURCE_NAMES, isIdOf } from '../common/ids';
import { findUnstorableText } from './validation.pipe';

/**
 * What a handler takes from the request beyond its path: from the query string, `'dto'` when a
 * whole @Query() object (its DTO validates the names, as every list does), else the names of its
 * @Query('name') parameters (none for most routes); and whether it takes a body (@Body()).
 */
interface RouteShape {
  query: 'dto' | ReadonlySet<string>;
  takesBody: boolean;
}

/** Collections whose name is not their resource's in the plural. */
const COLLECTION_RESOURCES: Record<string, NamedResource> = {
  externalAccounts: 'externalBankAccount',
};

/**
 * The resource named by each `:id` of a route pattern (`/v0/plans/:id/prices/:priceId` names a
 * plan and a price): the collection before it, in the singular. Parameters of collections whose
 * resource has no id prefix are left to their handler.
 */
function pathIdsOf(pattern: string | undefined): { param: string; resource: NamedResource }[] {
  const segments = (pattern ?? '').split('/');
  const ids: { param: string; resource: NamedResource }[] = [];
  segments.forEach((segment, i) => {
    if (!segment.startsWith(':') || i === 0) return;
    const collection = segments[i - 1];
    const resource = COLLECTION_RESOURCES[collection] ?? collection.replace(/s$/, '');
    if (resource in RESOURCE_NAMES && resource in ID_PREFIXES) {
      ids.push({ param: segment.slice(1), resource: resource });
    }
  });
  return ids;
}

function routeShapeOf(controller: object, handler: { name: string }): RouteShape {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<
    string,
    { data?: unknown }
  >;
  const names = new Set<string>();
  let query: RouteShape['query'] = names;
  let takesBody = false;
  for (const [key, arg] of Object.entries(args)) {
    const type = key.split(':')[0];
    if (type === String(RouteParamtypes.BODY)) takesBody = true;
    if (type !== String(RouteParamtypes.QUERY)) continue;
    if (typeof arg.data !== 'string') query = 'dto';
    else names.add(arg.data);
  }
  return { query, takesBody };
}

/**
 * A global guard (after the bearer guard) against input a route does not take. A query parameter
 * that the route does not take is a 400 naming it, on every route, writes and single-resource
 * reads included, as lists already answer: a parameter silently ignored hides a client's mistake,
 * and invites secrets into URLs (`?access_token=…`), which proxies and logs keep. Likewise the
 * body of a route that takes none (every DELETE, rotateSecret): each field of one is a 400
 * `unknown_field` (docs/decisions.md §1, Bodies). And first of all, a path id of the wrong shape
 * for its collection is the 404 of a missing resource, as its service would answer it.
 */
@Injectable()
export class RouteInputGuard implements CanActivate {
  private readonly shapes = new WeakMap<
    object,
    RouteShape & { pathIds: ReturnType<typeof pathIdsOf> }
  >();

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const handler = context.getHandler();
    let shape = this.shapes.get(handler);
    if (shape === undefined) {
      shape = {
        ...routeShapeOf(context.getClass(), handler),
        pathIds: pathIdsOf(request.routeOptions.url),
      };
      this.shapes.set(handler, shape);
    }
    // A malformed id names nothing: 404 before any query or body is looked at (docs/api.md §1).
    for (const { param, resource } of shape.pathIds) {
      const id = (request.params as Record<string, unknown> | undefined)?.[param];
      if (typeof id === 'string' && !isIdOf(ID_PREFIXES[resource], id)) {
        throw new NotFoundError(resource, id);
      }
    }
    if (!shape.takesBody) assertNoBodyFields(request.body);
    const query = (request.query ?? {}) as Record<string, unknown>;
    const names = Object.keys(query);
    if (names.length === 0) return true;
    if (shape.query === 'dto') return true; // the validation pipe checks it against the DTO
    const allowed = shape.query;
    const unknown = names.filter((name) => !allowed.has(name));
    if (unknown.length === 0) return true;
    throw unknownFields(unknown, 'is not a query parameter of this route');
  }
}

function unknownFields(fields: string[], message: string): ValidationFailedError {
  return new ValidationFailedError(
    fields.map((field): FieldError => ({ field, code: 'unknown_field', message })),
  );
}

/**
 * The body of a route that takes none is accepted only when it says nothing: absent (an empty
 * body with `Content-Type: application/json` included) or `{}`. Anything else answers as the
 * validation pipe answers a body elsewhere: not an object is `invalid_type` on `body`, a key it
 * cannot store (`__proto__`, NUL) its own code, and every field `unknown_field`.
 */
function assertNoBodyFields(body: unknown): void {
  if (body === undefined) return;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ValidationFailedError.field('body', 'invalid_type', 'the body must be a JSON object');
  }
  const fields = Object.keys(body);
  if (fields.length === 0) return;
  const found = findUnstorableText(body);
  if (found !== null) throw ValidationFailedError.field(found.path, found.code, found.message);
  throw unknownFields(fields, 'is not a field of this request: this route takes no body');
}
