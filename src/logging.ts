import type { IncomingMessage, ServerResponse } from 'node:http';
import { Params } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import type { Options } from 'pino-http';
import { AppConfig } from './config/app-config';

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

/** One structured line per request, carrying the request id; nothing secret. */
export function loggerOptions(config: AppConfig, destination?: DestinationStream): Params {
  const options: Options = {
    level: config.logLevel,
    genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id?: string }).id ?? 'unknown',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    quietReqLogger: true,
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    serializers: {
      req: (req: {
        id: string;
        method: string;
        url: string;
        headers: Record<string, unknown>;
      }) => ({
        id: req.id,
        method: req.method,
        url: req.url,
        headers: {
          'user-agent': req.headers['user-agent'],
          'content-type': req.headers['content-type'],
        },
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  };
  return { pinoHttp: destination ? [options, destination] : options };
}
