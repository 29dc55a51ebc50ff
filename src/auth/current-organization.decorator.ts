import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Principal } from './api-keys.service';

/** The id of the caller's organization, set by the bearer guard. */
export const CurrentOrganization = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string => {
    const request = ctx.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    if (!request.user)
      throw new Error('CurrentOrganization used on a route without authentication');
    return request.user.organizationId;
  },
);
