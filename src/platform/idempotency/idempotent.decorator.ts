import { CanActivate, ExecutionContext, Req, UseGuards } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../../auth/api-keys.service';
import { isApiRoute } from '../route-path';
import { IDEMPOTENT_METHODS, parseIdempotencyKey } from './idempotency-key';
import type { IdempotencyService } from './idempotency.service';

/** Metadata on a route handler that honours Idempotency-Key (IdempotentRoutesCheck reads it). */
export const IDEMPOTENT_ROUTE = 'billing:idempotent-route';

type Handler = (...args: unknown[]) => unknown;

/** The application's IdempotencyService, which createApp puts on its Fastify instance. */
function serviceOf(request: FastifyRequest): IdempotencyService {
  const service = (request.server as FastifyInstance & { idempotency?: IdempotencyService })
    .idempotency;
  if (!service) throw new Error('@Idempotent() routes need the application built by createApp');
  return service;
}

/**
 * Claims the Idempotency-Key of an @Idempotent() route's request (or finds its stored answer),
 * as a guard of the route: after the global bearer guard, so the organization is known, and
 * before the validation pipe, so that a 400 the pipe answers is stored and replayed like any
 * other 4xx (API.md section 6: the first complete response is stored, 5xx excepted).
 */
class IdempotencyClaim implements CanActivate {
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    // The route reached decides, not the raw target: `http://host/v0/…` and `/v%30/…` reach
    // the same route as `/v0/…` and are claimed the same way.
    if (!IDEMPOTENT_METHODS.has(request.method) || !isApiRoute(request)) return true;
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    if (key !== undefined && request.user) {
      await serviceOf(request).begin(request, request.user.organizationId, key);
    }
    return true;
  }
}

const CLAIM = new IdempotencyClaim();

/**
 * Marks a write route (POST, PATCH, DELETE under /v0) as honouring Idempotency-Key, as Stripe's
 * API does: a retry with the same key and body gets the first answer back without running
 * again. Every such route must carry it: IdempotencyModule refuses to start when one does not.
 *
 * Two parts: a route guard claims the key before the validation pipe (IdempotencyClaim), and a
 * wrapper of the handler either skips it (a replay; IdempotencyService.onSend puts the stored
 * answer in place) or runs it so that its first transaction stores its answer in the same commit.
 * Not a Nest interceptor: Nest puts every route that has one through an RxJS chain with two
 * AsyncResource bindings per request, a sixth of the CPU of a PATCH (BENCHMARKS.md). The wrapper
 * asks Nest for the request as one extra parameter after the handler's own.
 */
export function Idempotent(): MethodDecorator {
  return (target, property, descriptor) => {
    const original = descriptor.value as unknown as Handler;
    const declared = Reflect.getMetadata('design:paramtypes', target, property) as
      unknown[] | undefined;
    const requestIndex = declared?.length ?? original.length;
    Req()(target, property, requestIndex);
    const route = function (this: unknown, ...args: unknown[]): unknown {
      const request = args[requestIndex] as FastifyRequest;
      // The status the route answers with when it succeeds (@HttpCode, else Nest's default).
      const status =
        (Reflect.getMetadata(HTTP_CODE_METADATA, route) as number | undefined) ??
        (request.method === 'POST' ? 201 : 200);
      return serviceOf(request).run(request, status, () =>
        original.apply(this, args.slice(0, requestIndex)),
      );
    };
    // What the decorators below this one recorded on the handler (route, status, docs).
    for (const key of Reflect.getOwnMetadataKeys(original) as unknown[]) {
      Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, original), route);
    }
    Object.defineProperty(route, 'name', { value: original.name });
    Reflect.defineMetadata(IDEMPOTENT_ROUTE, true, route);
    (descriptor as PropertyDescriptor).value = route;
    UseGuards(CLAIM)(target, property, descriptor);
    return descriptor;
  };
}
