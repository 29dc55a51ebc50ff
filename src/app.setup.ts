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
import { registerSecurityHeaders } from './common/http/security-headers';
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
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    // Long enough that an over-long path id reaches the handler and answers 404, not 414.
    routerOptions: { maxParamLength: 1000 },
    frameworkErrors: answerUnroutable,
    genReqId: requestIdFor,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  const logger = createLogger(config, options.logDestination);
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
    await installGuarantees(app);
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
 * missing resource gets, in the envelope, with the request id.
 */
function answerUnroutable(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  const response = toErrorResponse(
    new ApiError('not_found', `No such resource: ${request.url.split('?')[0].slice(0, 200)}`, {
      code: 'RESOURCE_NOT_FOUND',
    }),
    String(request.id),
  );
  void reply
    .status(response.status)
    .header('x-request-id', request.id)
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
  // the envelope's MALFORMED_JSON rather than a bare 400.
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser(['application/json']);
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    void parseJson(request, body as string, (err, value) => {
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
      if (!err) return done(null, withInexactNumbersMarked(body as string, value));
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
  });
}

/**
 * The platform guarantees of API.md section 6, as Fastify hooks on every route (the idempotency
 * claim itself is made by every write route's @Idempotent() wrapper). Order matters:
 * onRequest: request id, security headers, then the rate limit, so a 429 carries both;
 * preSerialization: the ETag of a resource the handler returned; onSend: an idempotent replay
 * or the storing of a response first, then the ETag of a replayed body and If-None-Match.
 */
async function installGuarantees(app: NestFastifyApplication): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  await registerSecurityHeaders(fastify);
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
