import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LoggerService } from '@nestjs/common';
import { Params } from 'nestjs-pino';
import pino, { DestinationStream, Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import { isAnyId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { routerPath } from './route-table';

const REDACTED = '[redacted]';

/** Paths pino must never print: credentials and bank details, wherever they appear. */
const REDACTED_PATHS = [
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

/**
 * The application's one pino logger: JSON lines on `destination` (standard output by default),
 * or, with LOG_FORMAT=pretty, the same lines made readable by pino-pretty (a time, the level in
 * colour on a terminal, the message, then the fields), for a developer at a terminal. The
 * redaction is pino's, before either format.
 */
export function createLogger(config: AppConfig, destination?: DestinationStream): Logger {
  const options = {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: REDACTED },
  };
  if (config.logFormat === 'pretty') {
    const pretty = pinoPretty({
      destination: destination ?? 1,
      colorize: destination === undefined && process.stdout.isTTY,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      sync: true,
    });
    return pino(options, pretty);
  }
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

/** A query parameter name that is safe to print: short, plain, and not shaped like a secret. */
const PLAIN_NAME = /^[A-Za-z][A-Za-z0-9_.[\]-]{0,39}$/;
const SECRET_SHAPED = /^(sk|pk|rk|whsec)_/i;

/** The prefixes of this service's secrets: API keys (`sk_live_`, `sk_test_`) and webhook secrets. */
const SECRET_PREFIX = /sk_live_|sk_test_|whsec_/i;
/** A secret inside free text: its prefix and everything after it up to the next white space. */
const SECRET_TOKEN = /(?:sk_live_|sk_test_|whsec_)\S*/gi;

/** True when `value` holds a secret's prefix anywhere, in any case. */
export function holdsSecret(value: string): boolean {
  return SECRET_PREFIX.test(value);
}

/**
 * A header value as a log may hold it: every secret-shaped token (`sk_live_…`, `sk_test_…`,
 * `whsec_…`, in any case, up to the next white space) replaced by `[redacted]`, the rest kept.
 */
export function loggableHeader(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return (typeof value === 'string' ? value : value.join(', ')).replace(SECRET_TOKEN, REDACTED);
}

/**
 * A request target's path as a log may hold it (docs/api.md §6): read as the router reads it
 * (routerPath: no query, no scheme or authority, segments percent-decoded), keeping each segment
 * that is a route literal or a well-formed id (ids.ts) and printing any other as `[redacted]`.
 * Whatever a client puts in a path (an API key, an account number) is thus never printed, and no
 * guess about what looks like one is needed: `/v0/externalAccounts/DE89…` is logged as
 * `/v0/externalAccounts/[redacted]`, `/v0/products/prod_01J…` as it is.
 */
export function loggablePath(target: string, literals: ReadonlySet<string>): string {
  return routerPath(target)
    .split('/')
    .map((segment) =>
      segment === '' || literals.has(segment) || isAnyId(segment) ? segment : REDACTED,
    )
    .join('/');
}

/**
 * The request target as a log may hold it (docs/api.md §6): the path (loggablePath), and the
 * NAMES of the query parameters, never their values, whatever the client put there
 * (`?access_token=sk_…`). A name that is itself odd or shaped like a key is printed as
 * `[redacted]`.
 */
function loggableTarget(
  request: FastifyRequest,
  literals: ReadonlySet<string>,
): { url: string; query?: string[] } {
  const target = request.url;
  const url = loggablePath(target, literals);
  if (!target.includes('?')) return { url };
  const query = request.query;
  const names =
    query !== null && typeof query === 'object'
      ? Object.keys(query).map((name) =>
          PLAIN_NAME.test(name) && !SECRET_SHAPED.test(name) ? name : REDACTED,
        )
      : [];
  return { url, query: names };
}

/**
 * One structured line per request, when its response has gone out: the request id (`reqId`,
 * also `req.id`), method, path and query parameter names (loggableTarget), user agent and
 * content type (loggableHeader), the status and the time taken. Never a header that could hold a
 * credential; 4xx lines are warnings and 5xx lines errors. Returns the function that writes the
 * line, for the answers no hook sees (answerUnroutable).
 */
export function registerRequestLog(
  fastify: FastifyInstance,
  root: Logger,
  literals: ReadonlySet<string>,
): RequestLine {
  // The line is built field by field below and holds nothing REDACTED_PATHS names, so it skips
  // the redaction pass (a walk of every path on every line).
  const logger = root.child({}, { redact: [] });
  const line: RequestLine = (request, reply) => {
    const statusCode = reply.statusCode;
    const level = statusCode >= 500 ? 'error' : statusCode >= 400 ? 'warn' : 'info';
    if (logger.isLevelEnabled(level)) {
      const headers = request.headers;
      logger[level](
        {
          reqId: request.id,
          req: {
            id: request.id,
            method: request.method,
            ...loggableTarget(request, literals),
            headers: {
              'user-agent': loggableHeader(headers['user-agent']),
              'content-type': loggableHeader(headers['content-type']),
            },
          },
          res: { statusCode },
          responseTime: Math.round(reply.elapsedTime),
        },
        statusCode >= 500 ? 'request errored' : 'request completed',
      );
    }
  };
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    line(request, reply);
    done();
  });
  return line;
}

/** Writes the request log's line of an answered request. */
export type RequestLine = (request: FastifyRequest, reply: FastifyReply) => void;

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
    error: nest.error.bind(nest),
    warn: nest.warn.bind(nest),
    debug: nest.debug?.bind(nest),
    verbose: nest.verbose?.bind(nest),
    fatal: nest.fatal?.bind(nest),
  };
}
