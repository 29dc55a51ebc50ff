import { CanActivate, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { UnauthorizedError } from '../common/errors';
import { timesSent } from '../common/raw-headers';
import { ApiKeysService, Principal } from './api-keys.service';
import { bearerToken } from './bearer-token';
import { IS_PUBLIC } from './public.decorator';

/**
 * The global guard (APP_GUARD): every route needs a live API key unless marked @Public().
 * The key comes only in the Authorization header (bearerToken: RFC 6750's header form, the
 * scheme in any case); passport-http-bearer would also accept an access_token in the query or
 * body, which would leak keys into logs, so the header is checked here first. A key found live
 * moments ago is let through from ApiKeysService's cache of checked keys, without I/O; any other
 * goes through this application instance's bearer strategy (see createBearerStrategy).
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
      // Node keeps the first of two Authorization headers: which key (and so which organization
      // and mode) a request runs as must not depend on their order, nor differ from what a
      // proxy that keeps the last one checked.
      if (timesSent(request.raw.rawHeaders, 'authorization') > 1) {
        throw new UnauthorizedError(
          'Malformed Authorization header: send it once, as Bearer <API key>',
        );
      }
      const token = bearerToken(header);
      if (token === undefined) {
        throw new UnauthorizedError(
          header === undefined
            ? 'No API key: send Authorization: Bearer <API key>'
            : 'Malformed Authorization header: expected Bearer <API key>',
        );
      }
      const cached = apiKeys.cachedPrincipal(token);
      if (cached) {
        request.user = cached;
        return true;
      }
      // passport-http-bearer splits the header on single spaces; RFC 6750 allows several, so the
      // strategy is shown the one spelling it reads. The token itself is unchanged.
      request.headers.authorization = `Bearer ${token}`;
      return (await super.canActivate(context)) as boolean;
    }

    override handleRequest<TUser>(err: unknown, user: TUser | false): TUser {
      // A database error (a 503) may come from another realm, so no instanceof test.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      if (err) throw err;
      if (!user) throw new UnauthorizedError('Invalid API key: it is unknown or has been revoked');
      return user;
    }
  }
  return new ApiKeyGuard({ session: false });
}
