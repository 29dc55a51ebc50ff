import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import type { FastifyRequest } from 'fastify';
import { FieldError, ValidationFailedError } from '../common/errors';
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
 * `unknown_field` (docs/decisions.md §1, Bodies).
 */
@Injectable()
export class RouteInputGuard implements CanActivate {
  private readonly shapes = new WeakMap<object, RouteShape>();

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const handler = context.getHandler();
    let shape = this.shapes.get(handler);
    if (shape === undefined) {
      shape = routeShapeOf(context.getClass(), handler);
      this.shapes.set(handler, shape);
    }
    if (!shape.takesBody) assertNoBodyFields(request.body);
    const query = (request.query ?? {}) as Record<string, unknown>;
    const names = Object.keys(query);
    if (names.length === 0) return true;
    if (shape.query === 'dto') return true; // the validation pipe checks it against the DTO
    const allowed = shape.query;
    const unknown = names.filter((name) => !allowed.has(name));
    if (unknown.length === 0) return true;
    throw new ValidationFailedError(
      unknown.map((field) => ({
        field,
        code: 'unknown_field',
        message: 'is not a query parameter of this route',
      })),
    );
  }
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
  throw new ValidationFailedError(
    fields.map((field): FieldError => ({
      field,
      code: 'unknown_field',
      message: 'is not a field of this request: this route takes no body',
    })),
  );
}
