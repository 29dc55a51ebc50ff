import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ApiError } from '../common/errors';
import { IdempotencyService } from './idempotency/idempotency.service';
import { RequestLine, registerRequestLog } from './logging';
import { etagOnSend, etagPreSerialization } from './conditional-requests';
import { Connections } from './connections';
import { toErrorResponse } from './error-envelope';
import { registerJsonBodies } from './json-body';
import { registerRouteBodyLimits } from './body-limit';
import { Metrics } from './metrics';
import { RateLimiter } from './rate-limit';
import { RouteTable } from './route-table';
import { SecurityHeaders, registerSecurityHeaders } from './security-headers';

/**
 * The request's path through the platform: every Fastify hook, in the order a request meets
 * them (docs/architecture.md, "The request's path"). What Nest adds in the middle (the bearer
 * guard, the idempotency claim, the validation pipe, the handler, the exception filter) is
 * registered by PlatformModule. Hooks of one kind run in the order they are added here. Returns
 * the request log's writer, for the requests the router refuses before any hook (answerUnroutable).
 */
export async function installRequestPath(
  app: NestFastifyApplication,
  parts: { headers: SecurityHeaders; connections: Connections; logger: Logger },
): Promise<RequestLine> {
  const fastify = app.getHttpAdapter().getInstance();

  // Routing: the methods of every path, so a known path with another method answers 405 with
  // Allow, and the literal words of every path, which the request log keeps in the paths it
  // prints (RouteTable). Paths the router refuses outright answer through answerUnroutable.
  const routes = app.get(RouteTable);
  fastify.addHook('onRoute', (route) => routes.add(route.url, route.method));
  // The routes that take larger bodies than BODY_LIMIT_BYTES (@BodyLimit).
  registerRouteBodyLimits(fastify);

  // onRequest 1: the request id (docs/api.md §6) on every answer, errors included.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  // onRequest 2: the security headers.
  registerSecurityHeaders(fastify, parts.headers);
  // onRequest 3: the connection's latest request, and the 503 of a server that is closing.
  parts.connections.register(fastify);
  // onRequest 4: the rate limit per API key, after the headers above so a 429 carries them.
  await app.get(RateLimiter).register(fastify);

  // Body parsing: JSON in UTF-8 only, errors in the envelope.
  registerJsonBodies(fastify);

  // Nest: bearer guard → idempotency claim (route guard) → validation pipe → handler →
  // exception filter (PlatformModule's APP_* providers, @Idempotent()).

  // preSerialization: the ETag of a resource the handler returned.
  fastify.addHook('preSerialization', etagPreSerialization);
  // onSend 1: an idempotent replay, or the storing of the answer of a request that owns a key.
  const idempotency = app.get(IdempotencyService);
  fastify.addHook('onSend', idempotency.onSend);
  // onSend 2: the ETag of a replayed body, and 304 for a current If-None-Match.
  fastify.addHook('onSend', etagOnSend);

  // onResponse 1: one log line per request, secrets redacted.
  const requestLine = registerRequestLog(fastify, parts.logger, routes.literals);
  // onResponse 2: the request's metrics (route pattern, status, latency), when METRICS_PORT is set.
  app.get(Metrics).register(fastify);
  return requestLine;
}

/**
 * Fastify's router refuses a path before any hook runs when a parameter is longer than
 * maxParamLength or is not valid percent-encoding. Such an id cannot exist: answer the 404 a
 * missing resource gets, in the envelope, with the request id and the security headers. The
 * message does not echo the path: what stands in the id's place may be an account number or a
 * key (docs/api.md §5.5). No hook runs for such a request, the request log's included: its line
 * is written here (`requestLine`, once the service is installed), with such segments redacted.
 */
export function answerUnroutable(
  request: FastifyRequest,
  reply: FastifyReply,
  securityHeaders: Record<string, string>,
  requestLine?: RequestLine,
): void {
  const response = toErrorResponse(
    new ApiError('not_found', 'No such resource', { code: 'RESOURCE_NOT_FOUND' }),
    String(request.id),
  );
  // No onRequest hook has run: the headers they set on every answer are set here.
  void reply
    .status(response.status)
    .header('x-request-id', request.id)
    .headers(securityHeaders)
    .header('cache-control', 'no-store')
    .header('content-type', 'application/json; charset=utf-8')
    .send(response.body);
  requestLine?.(request, reply);
}
