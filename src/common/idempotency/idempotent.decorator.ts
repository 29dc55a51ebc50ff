import { Req } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../../auth/api-keys.service';
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
 * What an @Idempotent() route runs instead of its handler: with an Idempotency-Key, the key is
 * claimed (or its stored answer replayed, the handler not running), and the handler's first
 * transaction stores its answer in the same commit (IdempotencyService.runOwned).
 */
async function runIdempotent(
  request: FastifyRequest & { user?: Principal },
  route: Handler,
  handle: () => unknown,
): Promise<unknown> {
  if (!IDEMPOTENT_METHODS.has(request.method) || !request.url.startsWith('/v0/')) return handle();
  const key = parseIdempotencyKey(request.headers['idempotency-key']);
  if (key === undefined || !request.user) return handle();
  const idempotency = serviceOf(request);
  // The status the route answers with when it succeeds (@HttpCode, else Nest's default).
  const status =
    (Reflect.getMetadata(HTTP_CODE_METADATA, route) as number | undefined) ??
    (request.method === 'POST' ? 201 : 200);
  // A replay's status, headers and body are put in place by IdempotencyService.onSend.
  if (await idempotency.begin(request, request.user.organizationId, key)) return undefined;
  return idempotency.runOwned(request, status, handle);
}

/**
 * Marks a write route (POST, PATCH, DELETE under /v0) as honouring Idempotency-Key, as Stripe's
 * API does: a retry with the same key and body gets the first answer back without running
 * again. Every such route must carry it: IdempotencyModule refuses to start when one does not.
 *
 * The key is claimed when the handler is called, after the guard (the organization is known)
 * and after the validation pipe: a request refused for its shape (400) uses up nothing, and
 * the corrected request may reuse the key, as on Stripe. The decorator wraps the handler rather
 * than adding a Nest interceptor because Nest puts every route that has an interceptor through
 * an RxJS chain with two AsyncResource bindings per request, a sixth of the CPU of a PATCH
 * (BENCHMARKS.md). It asks Nest for the request as one extra parameter after the handler's own.
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
      return runIdempotent(request, route, () => original.apply(this, args.slice(0, requestIndex)));
    };
    // What the decorators below this one recorded on the handler (route, status, docs).
    for (const key of Reflect.getOwnMetadataKeys(original) as unknown[]) {
      Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, original), route);
    }
    Object.defineProperty(route, 'name', { value: original.name });
    Reflect.defineMetadata(IDEMPOTENT_ROUTE, true, route);
    (descriptor as PropertyDescriptor).value = route;
    return descriptor;
  };
}
