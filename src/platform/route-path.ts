import type { FastifyRequest } from 'fastify';

/**
 * The path of the route a request reached, spelled one way whatever the client sent: the
 * route's pattern with its (decoded, then re-encoded) parameters filled in, and no query string.
 * `POST http://host/v0/products`, `POST /v%30/products` and `POST /v0/products` all give
 * `/v0/products`. Undefined when no route was found.
 *
 * Decisions about a request (is it idempotent, what is it recorded under) are taken on this and
 * never on `request.url`, the raw request target.
 */
export function routePath(request: FastifyRequest): string | undefined {
  const pattern = request.routeOptions?.url;
  if (pattern === undefined) return undefined;
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  return pattern.replace(/:([A-Za-z0-9_]+)|\*/g, (_match, name: string | undefined) =>
    encodeURIComponent(params[name ?? '*'] ?? ''),
  );
}

/** True when the request reached a route of the versioned API (`/v0/...`). */
export function isApiRoute(request: FastifyRequest): boolean {
  const pattern = request.routeOptions?.url;
  return pattern !== undefined && /^\/v0(\/|$)/.test(pattern);
}
