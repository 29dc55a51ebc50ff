import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';

/** The route config key a route's own body limit travels in, from its decorator to Fastify. */
const BODY_LIMIT_KEY = 'bodyLimit';

/**
 * A route whose bodies may be larger than BODY_LIMIT_BYTES (json-body.ts) (docs/api.md §6: 1 MB for
 * `POST /v0/usageEvents`, 100 KB everywhere else). The limit is Fastify's own, applied as the
 * body arrives: a larger body is refused (413) before it is read in full.
 */
export const BodyLimit = (bytes: number): MethodDecorator =>
  RouteConfig({ [BODY_LIMIT_KEY]: bytes });

/** Gives every route declared with @BodyLimit its limit (an onRoute hook, before routes exist). */
export function registerRouteBodyLimits(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    const limit = (route.config as Record<string, unknown> | undefined)?.[BODY_LIMIT_KEY];
    if (typeof limit === 'number') route.bodyLimit = limit;
  });
}
