import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/** Swagger UI's page and assets: the only HTML the service serves. */
export function isDocsUi(url: string): boolean {
  const path = url.split('?')[0];
  return path === '/docs' || path.startsWith('/docs/');
}

/** A JSON API loads nothing and is framed by no one. */
const API_CSP = {
  useDefaults: false,
  directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
};

/**
 * Swagger UI runs its own scripts and inline styles and fetches /docs-json, all from this
 * origin: Helmet's default policy allows that. Not upgrade-insecure-requests, which would break
 * the page when the service is reached over plain HTTP by a name other than localhost.
 */
const DOCS_CSP = {
  useDefaults: true,
  directives: { frameAncestors: ["'none'"], upgradeInsecureRequests: null },
};

/**
 * Security headers for a JSON API (API.md section 6), on every response, errors included:
 * Helmet's defaults (nosniff, HSTS, Referrer-Policy no-referrer, cross-origin isolation
 * headers...), X-Frame-Options DENY, a CSP that allows nothing but that Swagger UI relaxes, and
 * Cache-Control: no-store, since API responses are private to their caller.
 */
export async function registerSecurityHeaders(fastify: FastifyInstance): Promise<void> {
  // Runs for every route registered from here on (Nest's, then Swagger's), before Helmet's own
  // onRoute hook reads the option.
  fastify.addHook('onRoute', (route) => {
    if (isDocsUi(route.url)) route.helmet = { contentSecurityPolicy: DOCS_CSP };
  });
  await fastify.register(helmet, {
    contentSecurityPolicy: API_CSP,
    frameguard: { action: 'deny' },
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!isDocsUi(request.url)) void reply.header('cache-control', 'no-store');
    done();
  });
}
