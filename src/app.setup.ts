import { Type } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import { AppConfig } from './config/app-config';
import { RequestLine, createLogger, nestLogger } from './platform/logging';
import { Connections } from './platform/connections';
import { BODY_LIMIT_BYTES } from './platform/json-body';
import { documentGuarantees } from './platform/openapi-guarantees';
import { requestIdFor } from './platform/request-id';
import { answerUnroutable, installRequestPath } from './platform/request-path';
import { securityHeaders } from './platform/security-headers';

export interface CreateAppOptions {
  /** Modules added beside the product's (the end-to-end tests add fault-injection routes). */
  extraModules?: Type[];
  /** Where log lines go (standard output by default); the tests read them. */
  logDestination?: DestinationStream;
}

/**
 * Builds the application exactly as it serves: main.ts and the end-to-end tests both call this,
 * so the tests exercise the real parsers, hooks, filters, guard and docs.
 */
export async function createApp(
  config: AppConfig,
  options: CreateAppOptions = {},
): Promise<NestFastifyApplication> {
  const logger = createLogger(config, options.logDestination);
  const headers = await securityHeaders();
  const connections = new Connections(config.requestTimeoutSeconds, headers.api, logger);
  // The request log's writer, once installed: the router's refusals answer before any hook.
  let requestLine: RequestLine | undefined;
  const adapter = new FastifyAdapter({
    ...connections.serverOptions(),
    bodyLimit: BODY_LIMIT_BYTES,
    // Long enough that an over-long path id reaches the handler and answers 404, not 414.
    routerOptions: { maxParamLength: 1000 },
    frameworkErrors: (_error: Error, request: FastifyRequest, reply: FastifyReply) =>
      answerUnroutable(request, reply, headers.api, requestLine),
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
    requestLine = await installRequestPath(app, { headers, connections, logger });
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
      // package.json's "UNLICENSED": no licence is granted to use the service or its code; the URL
      // is npm's definition of that word.
      .setLicense(
        'Proprietary (UNLICENSED): all rights reserved',
        'https://docs.npmjs.com/cli/configuring-npm/package-json#license',
      )
      // The server that serves this document: Swagger UI's "Try it out" calls it, wherever it runs.
      .addServer('/', 'This server')
      .addBearerAuth({
        type: 'http',
        scheme: 'bearer',
        // Opaque API keys, not JWTs.
        bearerFormat: 'sk_live_… or sk_test_… API key',
        description:
          'An API key: `sk_live_` or `sk_test_` and 32 letters or digits, as `Authorization: Bearer <API key>`',
      })
      .build(),
  );
  documentGuarantees(document);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    yamlDocumentUrl: 'docs-yaml',
    // The key a reader authorized with survives a reload of the page (kept in its localStorage).
    swaggerOptions: { persistAuthorization: true },
  });
}
