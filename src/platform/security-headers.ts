import helmet, { FastifyHelmetOptions } from '@fastify/helmet';
import Fastify, { FastifyInstance } from 'fastify';

/** Swagger UI's page and assets: the only HTML the service serves. */
function isDocsUi(url: string): boolean {
  const path = url.split('?')[0];
  return path === '/docs' || path.startsWith('/docs/');
}

/**
 * JSON responses leave out what only acts on HTML documents in a browser (Origin-Agent-Cluster,
 * X-DNS-Prefetch-Control, X-Download-Options for Internet Explorer, X-XSS-Protection: 0): they
 * protect nothing here and every header is work on every response. Swagger UI's pages keep them.
 */
const API_OPTIONS: FastifyHelmetOptions = {
  // A JSON API loads nothing and is framed by no one.
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  },
  frameguard: { action: 'deny' },
  originAgentCluster: false,
  dnsPrefetchControl: false,
  ieNoOpen: false,
  xssFilter: false,
};

const DOCS_OPTIONS: FastifyHelmetOptions = {
  // Swagger UI runs its own scripts and inline styles and fetches /docs-json, all from this
  // origin: Helmet's default policy allows that. Not upgrade-insecure-requests, which would break
  // the page when the service is reached over plain HTTP by a name other than localhost.
  contentSecurityPolicy: {
    useDefaults: true,
    directives: { frameAncestors: ["'none'"], upgradeInsecureRequests: null },
  },
  frameguard: { action: 'deny' },
};

/** Headers a response has whatever Helmet does: left out of what Helmet is asked for. */
const NOT_SECURITY = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
]);

/**
 * The headers Helmet sets with these options, asked of Helmet itself once, on a throwaway
 * Fastify instance. @fastify/helmet would build a new Helmet middleware (parsing every option
 * again) for each request, and the headers never change.
 */
async function helmetHeaders(options: FastifyHelmetOptions): Promise<Record<string, string>> {
  const probe = Fastify();
  await probe.register(helmet, options);
  probe.get('/', (_request, reply) => reply.send(''));
  const response = await probe.inject({ method: 'GET', url: '/' });
  await probe.close();
  return Object.fromEntries(
    Object.entries(response.headers)
      .filter(([name]) => !NOT_SECURITY.has(name))
      .map(([name, value]) => [name, String(value)]),
  );
}

/** The two sets of security headers: every JSON answer's, and Swagger UI's pages'. */
export type SecurityHeaders = Record<'api' | 'docs', Record<string, string>>;

/**
 * Security headers for a JSON API (docs/api.md §6), on every response, errors included:
 * Helmet's defaults (nosniff, HSTS, Referrer-Policy no-referrer, cross-origin isolation
 * headers...), X-Frame-Options DENY, a CSP that allows nothing but that Swagger UI's routes
 * relax, and Cache-Control: no-store (set beside them), since API responses are private to their
 * caller. Both sets are Helmet's, computed once at start-up; answers written below Fastify (a
 * request Node's parser refused) carry `api` too.
 */
export async function securityHeaders(): Promise<SecurityHeaders> {
  return { api: await helmetHeaders(API_OPTIONS), docs: await helmetHeaders(DOCS_OPTIONS) };
}

/** Sets the security headers as constants on every response. */
export function registerSecurityHeaders(fastify: FastifyInstance, headers: SecurityHeaders): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.headers(isDocsUi(request.routeOptions.url ?? '') ? headers.docs : headers.api);
    if (!isDocsUi(request.url)) void reply.header('cache-control', 'no-store');
    done();
  });
}
