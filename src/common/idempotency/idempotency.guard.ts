import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../auth/api-keys.service';
import { ApiError } from '../errors';
import { IDEMPOTENT_METHODS, parseIdempotencyKey } from './idempotency-key';
import { IdempotencyService } from './idempotency.service';

/**
 * Thrown to skip the handler of a replayed request: IdempotencyService.onSend then replaces the
 * response this would produce with the stored one.
 */
export class IdempotentReplay extends ApiError {
  constructor() {
    super('conflict', 'Replaying the stored response of this Idempotency-Key');
  }
}

/**
 * Global guard (APP_GUARD), registered after the API key guard: every POST, PATCH and DELETE
 * under /v0 that carries an Idempotency-Key claims it before the handler runs. The organization
 * is known by then, and the validation pipe has not run, so a 400 is stored like any 4xx.
 *
 * A guard rather than an interceptor: a global interceptor puts every request, reads included,
 * through Nest's RxJS interceptor chain (two AsyncResource bindings and several observables
 * each); a guard that has nothing to do returns at once.
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  constructor(private readonly idempotency: IdempotencyService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    if (!IDEMPOTENT_METHODS.has(request.method) || !request.url.startsWith('/v0/')) return true;
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    if (key === undefined || !request.user) return true;
    if (await this.idempotency.begin(request, request.user.organizationId, key)) {
      throw new IdempotentReplay();
    }
    return true;
  }
}
