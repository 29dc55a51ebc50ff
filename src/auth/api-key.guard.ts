import { CanActivate, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { UnauthorizedError } from '../common/errors';
import { ApiKeysService, Principal } from './api-keys.service';
import { IS_PUBLIC } from './public.decorator';

const BEARER = /^Bearer [^\s]+$/;

/**
 * The global guard (APP_GUARD): every route needs a live API key unless marked @Public().
 * The key must come in the Authorization header; passport-http-bearer would also accept an
 * access_token in the query or body, which would leak keys into logs, so that is refused here.
 * `strategyName` is this application instance's bearer strategy (see createBearerStrategy).
 * A key the strategy accepted within the last few seconds is let through from ApiKeysService's
 * cache without running passport.
 */
export function createApiKeyGuard(
  strategyName: string,
  reflector: Reflector,
  apiKeys: ApiKeysService,
): CanActivate {
  // Whether a route is @Public() never changes: read its metadata once per class and handler.
  const publicRoutes = new WeakMap<object, WeakMap<object, boolean>>();

  class ApiKeyGuard extends AuthGuard(strategyName) {
    override async canActivate(context: ExecutionContext): Promise<boolean> {
      const handler = context.getHandler();
      const controller = context.getClass();
      let handlers = publicRoutes.get(controller);
      if (!handlers) publicRoutes.set(controller, (handlers = new WeakMap()));
      let isPublic = handlers.get(handler);
      if (isPublic === undefined) {
        isPublic = !!reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, controller]);
        handlers.set(handler, isPublic);
      }
      if (isPublic) return true;
      const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
      const header = request.headers.authorization;
      if (typeof header !== 'string' || !BEARER.test(header)) {
        throw new UnauthorizedError(
          header === undefined
            ? 'No API key: send Authorization: Bearer <API key>'
            : 'Malformed Authorization header: expected Bearer <API key>',
        );
      }
      // A key that the bearer strategy accepted moments ago needs neither passport nor the
      // database again (ApiKeysService.cachedPrincipal); any other goes through the strategy.
      const cached = apiKeys.cachedPrincipal(header.slice('Bearer '.length));
      if (cached) {
        request.user = cached;
        return true;
      }
      return (await super.canActivate(context)) as boolean;
    }

    override handleRequest<TUser>(err: unknown, user: TUser | false): TUser {
      // Unchanged: a database error (a 503) may come from another realm, so no instanceof test.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      if (err) throw err;
      if (!user) throw new UnauthorizedError('Invalid API key: it is unknown or has been revoked');
      return user;
    }
  }
  return new ApiKeyGuard({ session: false });
}
