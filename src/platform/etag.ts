import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** The If-Match request header (empty when sent empty: see assertIfMatch in common/etag), or undefined. */
export const IfMatch = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string | undefined => {
    const value = ctx.switchToHttp().getRequest<FastifyRequest>().headers['if-match'];
    return typeof value === 'string' ? value : undefined;
  },
);
