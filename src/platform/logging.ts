import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LoggerService } from '@nestjs/common';
import { Params } from 'nestjs-pino';
import pino, { DestinationStream, Logger } from 'pino';
import { AppConfig } from '../config/app-config';

/** Paths pino must never print: credentials and bank details, wherever they appear. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.apiKey',
  '*.accountNumber',
  '*.*.accountNumber',
  '*.*.*.accountNumber',
  '*.password',
  'err.config',
];

/** The application's one pino logger: JSON lines on `destination` (standard output by default). */
export function createLogger(config: AppConfig, destination?: DestinationStream): Logger {
  const options = {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * nestjs-pino gives Nest and the services (PinoLogger) this logger. Its per-request middleware
 * (pino-http and an AsyncLocalStorage context) is not mounted on any route: the request line
 * comes from a Fastify hook (registerRequestLog), and lines logged while serving a request
 * name it with `reqId` themselves. AsyncLocalStorage would install promise hooks that tax
 * every await of every request.
 */
export function loggerParams(logger: Logger): Params {
  return { pinoHttp: { logger }, forRoutes: [] };
}

type Level = 'info' | 'warn' | 'error';

function levelOf(statusCode: number): Level {
  return statusCode >= 500 ? 'error' : statusCode >= 400 ? 'warn' : 'info';
}

/** A query parameter name that is safe to print: short, plain, and not shaped like a secret. */
const PLAIN_NAME = /^[A-Za-z][A-Za-z0-9_.[\]-]{0,39}$/;
const SECRET_SHAPED = /^(sk|pk|rk|whsec)_/i;

/**
 * The request target as a log may hold it (docs/api.md §6): the path, and the NAMES of the
 * query parameters, never their values, whatever the client put there (`?access_token=sk_…`).
 * A name that is itself odd or shaped like a key is printed as `[redacted]`.
 */
export function loggableTarget(request: FastifyRequest): { url: string; query?: string[] } {
  const target = request.url;
  const mark = target.indexOf('?');
  if (mark < 0) return { url: target };
  const query = request.query;
  const names =
    query !== null && typeof query === 'object'
      ? Object.keys(query).map((name) =>
          PLAIN_NAME.test(name) && !SECRET_SHAPED.test(name) ? name : '[redacted]',
        )
      : [];
  return { url: target.slice(0, mark), query: names };
}

/**
 * One structured line per request, when its response has gone out: the request id (`reqId`,
 * also `req.id`), method, path and query parameter names (loggableTarget), user agent and content type, the status and the time taken.
 * Never a header that could hold a credential; 4xx lines are warnings and 5xx lines errors.
 */
export function registerRequestLog(fastify: FastifyInstance, root: Logger): void {
  // The line is built field by field below and holds nothing REDACTED_PATHS names, so it skips
  // the redaction pass (a walk of every path on every line).
  const logger = root.child({}, { redact: [] });
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const statusCode = reply.statusCode;
    const level = levelOf(statusCode);
    if (logger.isLevelEnabled(level)) {
      const headers = request.headers;
      logger[level](
        {
          reqId: request.id,
          req: {
            id: request.id,
            method: request.method,
            ...loggableTarget(request),
            headers: {
              'user-agent': headers['user-agent'],
              'content-type': headers['content-type'],
            },
          },
          res: { statusCode },
          responseTime: Math.round(reply.elapsedTime),
        },
        statusCode >= 500 ? 'request errored' : 'request completed',
      );
    }
    done();
  });
}

/** Nest's start-up chatter: a line per module, controller and route, at every start. */
const START_UP_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
]);

/**
 * The logger Nest itself writes through: `nest`'s lines, except that its start-up inventory
 * (modules initialized, routes mapped: some sixty lines) goes out at debug, so an info log holds
 * what happens rather than what the code contains. LOG_LEVEL=debug shows it again.
 */
export function nestLogger(nest: LoggerService): LoggerService {
  const isStartUp = (params: unknown[]) =>
    START_UP_CONTEXTS.has(params[params.length - 1] as string);
  return {
    log(message: unknown, ...params: unknown[]): void {
      if (isStartUp(params)) nest.debug?.(message, ...params);
      else nest.log(message, ...params);
    },
    error(message: unknown, ...params: unknown[]): void {
      nest.error(message, ...params);
    },
    warn(message: unknown, ...params: unknown[]): void {
      nest.warn(message, ...params);
    },
    debug(message: unknown, ...params: unknown[]): void {
      nest.debug?.(message, ...params);
    },
    verbose(message: unknown, ...params: unknown[]): void {
      nest.verbose?.(message, ...params);
    },
    fatal(message: unknown, ...params: unknown[]): void {
      nest.fatal?.(message, ...params);
    },
  };
}
