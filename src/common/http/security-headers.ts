import helmet from '@fastify/helmet';
import Fastify, { FastifyInstance } from 'fastify';

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

const HELMET_OPTIONS = { contentSecurityPolicy: API_CSP, frameguard: { action: 'deny' as const } };

/** Headers a response has whatever Helmet does: left out of what Helmet is asked for. */
const NOT_SECURITY = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
]);

/**
 * The headers Helmet sets on an API response, asked of Helmet itself once, on a throwaway Fastify
 * instance: @fastify/helmet builds a new Helmet middleware (parsing every option again) for each
 * request, and these headers never change.
 */
async function apiSecurityHeaders(): Promise<Record<string, string>> {
  const probe = Fastify();
  await probe.register(helmet, HELMET_OPTIONS);
  probe.get('/', (_request, reply) => reply.send(''));
  const response = await probe.inject({ method: 'GET', url: '/' });
  await probe.close();
  return Object.fromEntries(
    Object.entries(response.headers)
      .filter(([name]) => !NOT_SECURITY.has(name))
      .map(([name, value]) => [name, String(value)]),
  );
}

/**
 * Security headers for a JSON API (API.md section 6), on every response, errors included:
 * Helmet's defaults (nosniff, HSTS, Referrer-Policy no-referrer, cross-origin isolation
 * headers...), X-Frame-Options DENY, a CSP that allows nothing but that Swagger UI relaxes, and
 * Cache-Control: no-store, since API responses are private to their caller. Swagger UI's routes
 * run Helmet itself with their own CSP; every other response gets the API's headers as computed
 * by Helmet at start-up.
 */
export async function registerSecurityHeaders(fastify: FastifyInstance): Promise<void> {
  const apiHeaders = await apiSecurityHeaders();
  // Runs for every route registered from here on (Nest's, then Swagger's), before Helmet's own
  // onRoute hook reads the option.
  fastify.addHook('onRoute', (route) => {
    if (isDocsUi(route.url)) route.helmet = { contentSecurityPolicy: DOCS_CSP };
  });
  await fastify.register(helmet, { ...HELMET_OPTIONS, global: false });
  fastify.addHook('onRequest', (request, reply, done) => {
    const config = request.routeOptions.config as { helmet?: unknown } | undefined;
    if (config?.helmet === undefined) void reply.headers(apiHeaders);
    if (!isDocsUi(request.url)) void reply.header('cache-control', 'no-store');
    done();
  });
}
