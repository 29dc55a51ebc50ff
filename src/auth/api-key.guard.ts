import { CanActivate, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { UnauthorizedError } from '../common/errors';
import { IS_PUBLIC } from './public.decorator';

const BEARER = /^Bearer [^\s]+$/;

/**
 * The global guard (APP_GUARD): every route needs a live API key unless marked @Public().
 * The key must come in the Authorization header; passport-http-bearer would also accept an
 * access_token in the query or body, which would leak keys into logs, so that is refused here.
 * `strategyName` is this application instance's bearer strategy (see createBearerStrategy).
 */
export function createApiKeyGuard(strategyName: string, reflector: Reflector): CanActivate {
  class ApiKeyGuard extends AuthGuard(strategyName) {
    override async canActivate(context: ExecutionContext): Promise<boolean> {
      const isPublic = reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
        context.getHandler(),
        context.getClass(),
      ]);
      if (isPublic) return true;
      const request = context.switchToHttp().getRequest<FastifyRequest>();
      const header = request.headers.authorization;
      if (typeof header !== 'string' || !BEARER.test(header)) {
        throw new UnauthorizedError(
          header === undefined
            ? 'No API key: send Authorization: Bearer <API key>'
            : 'Malformed Authorization header: expected Bearer <API key>',
        );
      }
      return (await super.canActivate(context)) as boolean;
    }

    override handleRequest<TUser>(err: unknown, user: TUser | false): TUser {
      if (err) throw err instanceof Error ? err : new UnauthorizedError();
      if (!user) throw new UnauthorizedError('Invalid API key: it is unknown or has been revoked');
      return user;
    }
  }
  return new ApiKeyGuard({ session: false });
}
