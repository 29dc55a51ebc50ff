import { STATUS_CODES, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { ApiError } from '../common/errors';
import { toErrorResponse } from './error-envelope';
import { ID_PREFIXES, newId } from '../common/ids';

/** Node's own error for a request whose headers or body did not arrive in time. */
const REQUEST_TIMEOUT = 'ERR_HTTP_REQUEST_TIMEOUT';

/** What a client did wrong below HTTP's routing, by the code of Node's parser (llhttp). */
export function parserError(code?: string, rawPacket?: Buffer, bytesParsed = 0): ApiError {
  switch (code) {
    case 'HPE_INVALID_METHOD':
      // Node's parser knows only the methods of its table: a well-formed request line with
      // another method is a 405; bytes that are no request line at all fall to the default.
      return requestLineAt(rawPacket, bytesParsed)
        ? methodNotAllowed('This method is not one this API answers')
        : parserError(undefined);
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('headers_too_large', 'The request headers are larger than 16 KB', {
        code: 'HEADERS_TOO_LARGE',
      });
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError('payload_too_large', 'The chunk extensions of the body are too large', {
        code: 'PAYLOAD_TOO_LARGE',
      });
    case 'HPE_INVALID_EOF_STATE':
      return malformed(
        'The connection was closed before the body announced by Content-Length (or chunked encoding) arrived in full',
        'INVALID_CONTENT_LENGTH',
      );
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return malformed(
        'Content-Length is not a single number, or is sent with Transfer-Encoding',
        'INVALID_CONTENT_LENGTH',
      );
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_STRICT':
      return malformed('The chunked body is not valid chunked encoding');
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_HEADER_VALUE_CHAR':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return malformed(
        'A header name or value holds a character HTTP does not allow (a control character such as DEL, or a bare CR or LF)',
      );
    default:
      return malformed(
        'The request is not valid HTTP/1.1 (its request line, a header, or the bytes after its body)',
      );
  }
}

/** A 400 for a request that is not valid HTTP. */
function malformed(message: string, code = 'MALFORMED_REQUEST'): ApiError {
  return new ApiError('validation_error', message, { code });
}

/** True when the line the parser stopped in is a request line (`FROB /path HTTP/1.1`). */
function requestLineAt(rawPacket: Buffer | undefined, bytesParsed: number): boolean {
  if (!rawPacket) return false;
  const text = rawPacket.toString('latin1');
  const start = text.lastIndexOf('\n', Math.max(0, bytesParsed - 1)) + 1;
  return /^[A-Za-z-]+ \S+ HTTP\/1\.[01]\r?\n/.test(text.slice(start));
}

/** The methods some route of the API answers: what Allow says where the path is not known. */
const API_METHODS = 'GET, HEAD, POST, PATCH, DELETE, OPTIONS';

function methodNotAllowed(message: string): ApiError {
  return new ApiError('method_not_allowed', `${message}: use GET, POST, PATCH or DELETE`, {
    code: 'METHOD_NOT_ALLOWED',
    headers: { Allow: API_METHODS },
  });
}

export function shuttingDownError(): ApiError {
  return new ApiError(
    'service_unavailable',
    'The service is shutting down; send the request again',
    { code: 'SHUTTING_DOWN', headers: { 'Retry-After': '1', Connection: 'close' } },
  );
}

export function requestTimeoutError(seconds: number): ApiError {
  return new ApiError(
    'request_timeout',
    `The request did not arrive in full within ${seconds} second${seconds === 1 ? '' : 's'}`,
    { code: 'REQUEST_TIMEOUT' },
  );
}

/**
 * The connection level, below Fastify's request lifecycle (docs/api.md §3 and §6):
 *
 * - Node's HTTP server cuts a request whose headers (slowloris) or body have not arrived in full
 *   within REQUEST_TIMEOUT_SECONDS, and reports errors of its parser (a malformed request line,
 *   a control character in a header, headers too large, bytes after a body) as `clientError`.
 *   Each gets the error envelope with a request id and the security headers, and the connection
 *   is closed: through the request's own reply when Fastify has one whose body was still
 *   arriving, else written on the socket, after any response still owed on it.
 * - On shutdown (Fastify's preClose) a request whose body is still arriving is answered 503 and
 *   closed, a connection halfway through its headers likewise, an idle one is closed, and the
 *   answer of a request being handled says `Connection: close`: the server stops at once
 *   instead of waiting for stalled uploads.
 * - A client that hangs up is the client's doing: nothing to answer (AllExceptionsFilter logs
 *   the request it abandoned, see `clientHungUp`).
 */
export class Connections {
  /** The latest request begun on each connection: the one Node's parser is reading. */
  private readonly latest = new WeakMap<Socket, FastifyReply>();
  private readonly open = new Set<Socket>();
  private readonly refused = new WeakSet<Socket>();
  private closing = false;

  constructor(
    private readonly timeoutSeconds: number,
    private readonly securityHeaders: Record<string, string>,
    private readonly logger: Logger,
  ) {}

  /** Fastify's server options: the timeouts, and the handler of Node's `clientError`. */
  serverOptions(): {
    requestTimeout: number;
    http: ServerOptions;
    clientErrorHandler: (error: Error, socket: Socket) => void;
  } {
    const timeout = this.timeoutSeconds * 1000;
    return {
      requestTimeout: timeout,
      http: {
        requestTimeout: timeout,
        headersTimeout: timeout,
        // How often Node looks for connections past their deadline: the 408 comes at most this
        // late (Node's default, 30 s, would double the timeout).
        connectionsCheckingInterval: Math.min(1000, timeout / 2),
        // A missing Host is refused in the envelope by the onRequest hook below.
        requireHostHeader: false,
      },
      clientErrorHandler: (error, socket) => this.onClientError(error, socket),
    };
  }

  /** The hooks that follow each connection and each request on it; register it first. */
  register(fastify: FastifyInstance): void {
    fastify.server.on('connection', (socket: Socket) => {
      this.open.add(socket);
      socket.once('close', () => this.open.delete(socket));
    });
    // CONNECT (a tunnel) never reaches Fastify: Node hands the socket to a `connect` listener,
    // and without one destroys it unanswered. It is answered 405 in the envelope, and logged.
    fastify.server.on('connect', (_request, socket: Socket) => {
      this.refused.add(socket);
      this.writeRaw(socket, methodNotAllowed('CONNECT is not supported'), 'CONNECT');
    });
    // Node answers an Expect other than 100-continue with a bare 417; RFC 9110 lets a server
    // ignore it instead, and the request then meets the same hooks as any other.
    fastify.server.on('checkExpectation', (request, response) =>
      fastify.server.emit('request', request, response),
    );
    fastify.addHook('onRequest', (request, reply, done) => {
      this.latest.set(request.raw.socket, reply);
      if (this.closing) {
        // Fastify's own 503 while closing (return503OnClosing) has no envelope: this one has.
        return done(shuttingDownError());
      }
      if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
        // RFC 9112 3.2 (Node's own check, requireHostHeader, answers a bare 400).
        return done(malformed('An HTTP/1.1 request must carry a Host header'));
      }
      done();
    });
    fastify.addHook('preClose', (done) => {
      this.closing = true;
      this.drain(fastify);
      done();
    });
  }

  private onClientError(
    error: Error & { code?: string; rawPacket?: Buffer; bytesParsed?: number },
    socket: Socket,
  ): void {
    if (error.code === 'ECONNRESET' || socket.destroyed || this.refused.has(socket)) {
      // The client hung up (or its connection is already being answered and closed).
      socket.destroy();
      return;
    }
    this.refused.add(socket);
    const apiError =
      error.code === REQUEST_TIMEOUT
        ? this.closing
          ? shuttingDownError()
          : requestTimeoutError(this.timeoutSeconds)
        : parserError(error.code, error.rawPacket, error.bytesParsed);
    this.refuse(socket, apiError, error.code);
  }

  /** Answers the request being read on `socket` with `error` and closes the connection. */
  private refuse(socket: Socket, error: ApiError, cause?: string): void {
    const reply = this.latest.get(socket);
    if (reply && !reply.request.raw.complete && !reply.sent) {
      // The request's headers arrived and Fastify is reading its body: answer it as any error.
      const response = toErrorResponse(error, String(reply.request.id));
      void reply
        .status(response.status)
        .headers({ ...response.headers, connection: 'close' })
        .header('content-type', 'application/json; charset=utf-8')
        .send(response.body);
      return;
    }
    const owed = reply && !reply.raw.writableFinished ? reply.raw : undefined;
    if (owed) {
      // A request before this one is still being handled: its answer goes first.
      owed.once('close', () => this.writeRaw(socket, error, cause));
    } else {
      this.writeRaw(socket, error, cause);
    }
  }

  /** The envelope written on the socket itself, for a request Fastify never saw. */
  private writeRaw(socket: Socket, error: ApiError, cause?: string): void {
    if (socket.destroyed || socket.writableEnded) return;
    const requestId = newId(ID_PREFIXES.request);
    const response = toErrorResponse(error, requestId);
    const body = JSON.stringify(response.body);
    const headers: Record<string, string> = {
      'x-request-id': requestId,
      ...this.securityHeaders,
      'cache-control': 'no-store',
      ...response.headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    socket.end(
      `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status]}\r\n${head}\r\n\r\n${body}`,
    );
    // Closed once written; a client that reads nothing does not keep it open.
    socket.once('finish', () => socket.destroy());
    setTimeout(() => socket.destroy(), 1000).unref();
    // The request line may hold a credential (a query string): only the parser's code is logged.
    this.logger.warn(
      { reqId: requestId, res: { statusCode: response.status }, cause },
      'request refused before routing',
    );
  }

  /** Shutdown: answer or close every connection that is not waiting on a handler. */
  private drain(fastify: FastifyInstance): void {
    fastify.server.closeIdleConnections();
    for (const socket of this.open) {
      if (socket.destroyed) continue;
      const reply = this.latest.get(socket);
      if (reply && !reply.raw.writableFinished) {
        if (!reply.request.raw.complete && !reply.sent) {
          this.refused.add(socket);
          this.refuse(socket, shuttingDownError());
        } else if (!reply.raw.headersSent) {
          // Being handled: it finishes, then the connection closes instead of idling.
          void reply.header('connection', 'close');
        }
        continue;
      }
      // Halfway through a request's headers (idle connections were closed above).
      this.refused.add(socket);
      this.writeRaw(socket, shuttingDownError(), 'shutdown');
    }
  }
}

/**
 * True when `request`'s client closed the connection before the request arrived in full: the
 * body read fails with Node's "aborted" error, which is no fault of the service.
 */
export function clientHungUp(request: { raw: { complete: boolean; destroyed: boolean } }): boolean {
  return request.raw.destroyed && !request.raw.complete;
}
