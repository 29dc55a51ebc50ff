import {
  CanActivate,
  ExecutionContext,
  Injectable,
  Req,
  SetMetadata,
  UseGuards,
  applyDecorators,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../auth/api-keys.service';
import { CREATED_ROUTE, locationOf } from '../created.decorator';
import { nextRouteArgIndex, wrapRouteHandler } from '../route-handler';
import { isApiRoute } from '../route-path';
import { IDEMPOTENT_METHODS, idempotencyKeyOf } from './idempotency-key';
import { ClaimedRequest, IdempotencyService } from './idempotency.service';

/** Metadata on a route handler that honours Idempotency-Key (IdempotentRoutesCheck reads it). */
export const IDEMPOTENT_ROUTE = 'billing:idempotent-route';

type Request = FastifyRequest & ClaimedRequest & { user?: Principal };

/**
 * Claims the Idempotency-Key of an @Idempotent() route's request (or finds its stored answer),
 * as a guard of the route: after the global bearer guard, so the organization is known, and
 * before the validation pipe, so that a 400 the pipe answers is stored and replayed like any
 * other 4xx (docs/api.md §6: the first complete response is stored, 5xx excepted). The claim
 * stays on the request, as the principal does, for the route and the onSend hook.
 */
@Injectable()
export class IdempotencyClaim implements CanActivate {
  constructor(private readonly idempotency: IdempotencyService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    // The route reached decides, not the raw target: `http://host/v0/…` and `/v%30/…` reach
    // the same route as `/v0/…` and are claimed the same way.
    if (!IDEMPOTENT_METHODS.has(request.method) || !isApiRoute(request)) return true;
    const key = idempotencyKeyOf(request);
    if (key !== undefined && request.user) {
      // The status the route answers with when it succeeds (@HttpCode, else Nest's default).
      const status =
        (Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) as number | undefined) ??
        (request.method === 'POST' ? 201 : 200);
      const { organizationId, livemode } = request.user;
      // A create's answer is stored with its Location (@Created), from its first commit on.
      const controller = context.getClass();
      const created = Reflect.getMetadata(CREATED_ROUTE, context.getHandler()) === true;
      request.idempotency = await this.idempotency.begin(
        request,
        { organizationId, livemode },
        key,
        { status, location: created ? (result) => locationOf(controller, result) : undefined },
      );
    }
    return true;
  }
}

/** Skips the handler of a request whose key's answer is replayed (onSend puts it in place). */
const skipReplays: MethodDecorator = (target, property, descriptor) => {
  const index = nextRouteArgIndex(target, property);
  Req()(target, property, index);
  wrapRouteHandler(descriptor, index, (handler, args, request) =>
    (request as Request).idempotency?.replay ? undefined : handler(args),
  );
  return descriptor;
};

/**
 * Marks a write route (POST, PATCH, DELETE under /v0) as honouring Idempotency-Key, as Stripe's
 * API does: a retry with the same key and body gets the first answer back without running
 * again. Every such route must carry it: IdempotencyModule refuses to start when one does not.
 *
 * A route guard (IdempotencyClaim, injected) claims the key before the validation pipe; the
 * handler is skipped for a replay; otherwise the route hands its caller (`@CurrentCaller()`,
 * whose `commit` is the claim) to its service, so that its first transaction stores the answer in
 * the same commit. Not a Nest interceptor: Nest puts every route that has one through an RxJS
 * chain with two AsyncResource bindings per request, a sixth of the CPU of a PATCH
 * (docs/benchmarks.md).
 */
export function Idempotent(): MethodDecorator {
  return applyDecorators(
    skipReplays,
    SetMetadata(IDEMPOTENT_ROUTE, true),
    UseGuards(IdempotencyClaim),
  );
}
