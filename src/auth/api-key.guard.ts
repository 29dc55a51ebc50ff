import { CanActivate, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { UnauthorizedError } from '../common/errors';
import { ApiKeysService, Principal } from './api-keys.service';
import { bearerToken } from './bearer-token';
import { IS_PUBLIC } from './public.decorator';

/**
 * The global guard (APP_GUARD): every route needs a live API key unless marked @Public().
 * The key comes only in the Authorization header (bearerToken: RFC 6750's header form, the
 * scheme in any case); a key in the query or the body is never looked at, since it would leak
 * into logs. A key found live moments ago is let through from ApiKeysService's cache of checked
 * keys, without I/O; any other is looked up.
 */
export function createApiKeyGuard(reflector: Reflector, apiKeys: ApiKeysService): CanActivate {
  // Whether a route is @Public() never changes: read its metadata once per class and handler.
  const publicRoutes = new WeakMap<object, WeakMap<object, boolean>>();

  class ApiKeyGuard implements CanActivate {
    async canActivate(context: ExecutionContext): Promise<boolean> {
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
      const token = bearerToken(header);
      if (token === undefined) {
        throw new UnauthorizedError(
          header === undefined
            ? 'No API key: send Authorization: Bearer <API key>'
            : 'Malformed Authorization header: expected Bearer <API key>',
        );
      }
      const principal = apiKeys.cachedPrincipal(token) ?? (await apiKeys.authenticate(token));
      if (!principal) {
        throw new UnauthorizedError('Invalid API key: it is unknown or has been revoked');
      }
      request.user = principal;
      return true;
    }
  }
  return new ApiKeyGuard();
}
