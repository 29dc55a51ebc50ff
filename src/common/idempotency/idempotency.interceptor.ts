import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { Observable, defer, from, of, switchMap } from 'rxjs';
import type { Principal } from '../../auth/api-keys.service';
import { IDEMPOTENT_METHODS, parseIdempotencyKey } from './idempotency-key';
import { IdempotencyService } from './idempotency.service';

/**
 * The interceptor of @Idempotent() routes (every POST, PATCH and DELETE under /v0): a request
 * that carries an Idempotency-Key claims it before the handler runs. Interceptors run after the guard, so the
 * organization is known, and before the validation pipe, so a 400 is stored like any 4xx.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    if (!IDEMPOTENT_METHODS.has(request.method) || !request.url.startsWith('/v0/')) {
      return next.handle();
    }
    return defer(() => {
      const key = parseIdempotencyKey(request.headers['idempotency-key']);
      if (key === undefined || !request.user) return next.handle();
      // The status the route answers with when it succeeds (@HttpCode, else Nest's default).
      const status =
        this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ??
        (request.method === 'POST' ? 201 : 200);
      return from(this.idempotency.begin(request, request.user.organizationId, key)).pipe(
        // A replay's status, headers and body are put in place by IdempotencyService.onSend.
        switchMap((replayed) =>
          replayed
            ? of(undefined)
            : this.idempotency.runOwned(request, status, () => next.handle()),
        ),
      );
    });
  }
}
