import { MIMEType } from 'node:util';
import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, toErrorResponse } from './common/errors';
import { etagOnSend, etagPreSerialization } from './common/http/conditional-requests';
import { documentGuarantees } from './common/http/openapi-guarantees';
import { RateLimiter } from './common/http/rate-limit';
import { RouteTable } from './common/http/route-table';
import { Connections } from './common/http/connections';
import {
  SecurityHeaders,
  registerSecurityHeaders,
  securityHeaders,
} from './common/http/security-headers';
import { IdempotencyService } from './common/idempotency/idempotency.service';
import { withInexactNumbersMarked } from './common/json-numbers';
import { requestIdFor } from './common/request-id';
import { AppConfig } from './config/app-config';
import { createLogger, nestLogger, registerRequestLog } from './logging';

/** API.md section 6: request bodies are at most 100 KB. */
export const BODY_LIMIT_BYTES = 100 * 1024;

/**
 * The deepest nesting of objects and arrays a body may have (the API's own bodies need 3). 100 KB
 * of `[[[[…` is 50,000 levels, enough to exhaust the stack of any recursive walk (validation,
 * the idempotency fingerprint) and turn a bad request into a 500.
 */
export const MAX_BODY_NESTING = 32;

/** How deeply objects and arrays nest in a parsed JSON value, without recursion. */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_BODY_NESTING) return deepest;
    for (const child of Object.values(current)) pending.push({ value: child, depth: depth + 1 });
  }
  return deepest;
}

/**
 * Builds the application exactly as it serves: main.ts and the end-to-end tests both call this,
 * so the tests exercise the real parsers, hooks, filters, guard and docs.
 */
export interface CreateAppOptions {
  /** Modules added beside the product's (the end-to-end tests add fault-injection routes). */
  extraModules?: Type[];
  /** Where log lines go (standard output by default); the tests read them. */
  logDestination?: DestinationStream;
}

export async function createApp(
  config: AppConfig,
  options: CreateAppOptions = {},
): Promise<NestFastifyApplication> {
  const logger = createLogger(config, options.logDestination);
  const headers = await securityHeaders();
  const connections = new Connections(config.requestTimeoutSeconds, headers.api, logger);
  const adapter = new FastifyAdapter({
    ...connections.serverOptions(),
    bodyLimit: BODY_LIMIT_BYTES,
    // Long enough that an over-long path id reaches the handler and answers 404, not 414.
    routerOptions: { maxParamLength: 1000 },
    frameworkErrors: (_error: Error, request: FastifyRequest, reply: FastifyReply) =>
      answerUnroutable(request, reply, headers.api),
    genReqId: requestIdFor,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    // Connections answers requests that arrive while closing, in the envelope.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, logger, options.extraModules),
    adapter,
    {
      bufferLogs: true,
      bodyParser: false,
      abortOnError: false,
    },
  );
  try {
    app.useLogger(nestLogger(app.get(Logger)));
    registerRequestLog(app.getHttpAdapter().getInstance(), logger);
    configureHttp(app);
    await installGuarantees(app, headers, connections);
    setupDocs(app);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  } catch (err) {
    // A start-up check failed: let go of the database connections before reporting it.
    await app.close().catch(() => undefined);
    throw err;
  }
  return app;
}

/**
 * Fastify's router refuses a path before any hook runs when a parameter is longer than
 * maxParamLength or is not valid percent-encoding. Such an id cannot exist: answer the 404 a
 * missing resource gets, in the envelope, with the request id and the security headers.
 */
function answerUnroutable(
  request: FastifyRequest,
  reply: FastifyReply,
  securityHeaders: Record<string, string>,
): void {
  const response = toErrorResponse(
    new ApiError('not_found', `No such resource: ${request.url.split('?')[0].slice(0, 200)}`, {
      code: 'RESOURCE_NOT_FOUND',
    }),
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
}

function configureHttp(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const routes = app.get(RouteTable);

  fastify.addHook('onRoute', (route) => routes.add(route.url, route.method));
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  // Bodies are JSON only: without this Fastify would also parse text/plain (415 instead).
  fastify.removeContentTypeParser(['text/plain']);
  // Fastify's own JSON parser (with its prototype-poisoning checks), but a parse failure becomes
  // the envelope's MALFORMED_JSON rather than a bare 400. The body is read as bytes and decoded
  // here: only UTF-8 is accepted (415 for another charset), and bytes that are not UTF-8 are a
  // 400, where Fastify's decoding would have stored U+FFFD in their place.
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser(['application/json']);
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    (request, bytes, done) => {
      const charsetError = unsupportedCharset(request.headers['content-type']);
      if (charsetError) return done(charsetError, undefined);
      let body: string;
      try {
        body = STRICT_UTF8.decode(bytes as Buffer);
      } catch {
        return done(
          new ApiError('validation_error', 'The body is not valid UTF-8', {
            code: 'MALFORMED_JSON',
          }),
          undefined,
        );
      }
      void parseJson(request, body, (err, value) => {
        if (!err && nestingDepth(value) > MAX_BODY_NESTING) {
          return done(
            new ApiError(
              'validation_error',
              `The body is nested too deeply: at most ${MAX_BODY_NESTING} levels of objects and arrays`,
              { code: 'MALFORMED_JSON' },
            ),
            undefined,
          );
        }
        // A number JSON.parse would change (12345678901234567890123) fails validation instead.
        if (!err) return done(null, withInexactNumbersMarked(body, value));
        const empty = body === '';
        done(
          new ApiError(
            'validation_error',
            empty
              ? 'The body is empty but Content-Type says application/json; send a JSON object'
              : 'The body is not valid JSON',
            { code: 'MALFORMED_JSON' },
          ),
          undefined,
        );
      });
    },
  );
}

/** UTF-8 that refuses invalid bytes instead of replacing them (a leading BOM is dropped). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The labels of UTF-8 a client may name in `charset` (WHATWG Encoding), in lower case. */
const UTF8_LABELS = new Set(['utf-8', 'utf8']);

/**
 * A 415 for a JSON body declared in a charset other than UTF-8 (API.md section 1: bodies are
 * `application/json; charset=utf-8`); no charset means UTF-8 (RFC 8259).
 */
function unsupportedCharset(contentType: string | undefined): ApiError | undefined {
  if (contentType === 'application/json' || contentType === 'application/json; charset=utf-8') {
    return undefined;
  }
  let charset: string | null;
  try {
    charset = new MIMEType(contentType ?? '').params.get('charset');
  } catch {
    charset = '(unreadable)';
  }
  if (charset === null || UTF8_LABELS.has(charset.toLowerCase())) return undefined;
  return new ApiError(
    'unsupported_media_type',
    'Request bodies must be JSON in UTF-8: send Content-Type: application/json (or application/json; charset=utf-8)',
    { code: 'UNSUPPORTED_MEDIA_TYPE' },
  );
}

/**
 * The platform guarantees of API.md section 6, as Fastify hooks on every route (the idempotency
 * claim itself is made by every write route's @Idempotent() wrapper). Order matters:
 * onRequest: request id, security headers, the connection's latest request (and the 503 of a
 * server that is closing), then the rate limit, so a 429 carries both;
 * preSerialization: the ETag of a resource the handler returned; onSend: an idempotent replay
 * or the storing of a response first, then the ETag of a replayed body and If-None-Match.
 */
async function installGuarantees(
  app: NestFastifyApplication,
  headers: SecurityHeaders,
  connections: Connections,
): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  registerSecurityHeaders(fastify, headers);
  connections.register(fastify);
  await app.get(RateLimiter).register(fastify);
  fastify.addHook('preSerialization', etagPreSerialization);
  const idempotency = app.get(IdempotencyService);
  // What @Idempotent() routes claim keys with (request.server.idempotency).
  fastify.decorate('idempotency', idempotency);
  fastify.addHook('onSend', idempotency.onSend);
  fastify.addHook('onSend', etagOnSend);
}

function setupDocs(app: NestFastifyApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Billing API')
      .setDescription(
        'Products, billable metrics, prices, plans and external bank accounts. Every /v0 route ' +
          'needs `Authorization: Bearer <API key>`; errors share one envelope (see ErrorEnvelope).',
      )
      .setVersion('v0')
      .addBearerAuth({
        type: 'http',
        scheme: 'bearer',
        description: 'An API key: sk_live_… or sk_test_…',
      })
      .build(),
  );
  documentGuarantees(document);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    yamlDocumentUrl: 'docs-yaml',
  });
}
