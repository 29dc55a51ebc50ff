import { IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { Socket, connect } from 'node:net';

/** One HTTP/1.1 response as read off the wire. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
  text: string;
}

export interface RawExchange {
  /** Every response received, in order. */
  responses: RawResponse[];
  /** True when the server closed the connection before `waitMs` ran out. */
  closed: boolean;
}

/** Splits what a server wrote into responses (each with Content-Length, as this service sends). */
export function parseResponses(raw: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const text = rest.subarray(end + 4, end + 4 + length).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body, text });
    rest = rest.subarray(end + 4 + length);
  }
  return responses;
}

/**
 * Writes `data` on a new connection to `port` and reads until the server closes it or `waitMs`
 * runs out (the "for ever" of a connection that is never cut).
 */
export function exchange(
  port: number,
  data: string | Buffer,
  options: { waitMs?: number; halfClose?: boolean; onSocket?: (socket: Socket) => void } = {},
): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseResponses(Buffer.concat(chunks)), closed });
    };
    const timer = setTimeout(() => finish(false), options.waitMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
    socket.write(data);
    if (options.halfClose) socket.end();
    options.onSocket?.(socket);
  });
}

/** Asserts the error envelope of docs/api.md §3 on a response read off the wire. */
export function expectRawEnvelope(
  res: RawResponse | undefined,
  status: number,
  error: string,
  code?: string,
): void {
  expect(res).toBeDefined();
  expect({ status: res!.status, error: res!.body?.error }).toEqual({ status, error });
  if (code !== undefined) expect(res!.body.code).toBe(code);
  expect(typeof res!.body.message).toBe('string');
  expect(res!.body.requestId).toMatch(/^req_[0-9A-Za-z]+$/);
  expect(res!.headers['x-request-id']).toBe(res!.body.requestId);
  expect(res!.headers['content-type']).toBe('application/json; charset=utf-8');
  // The security headers every answer carries (docs/api.md §6), not Fastify's or Node's body.
  expect(res!.headers['x-content-type-options']).toBe('nosniff');
  expect(res!.headers['content-security-policy']).toContain("default-src 'none'");
  expect(res!.headers['strict-transport-security']).toBeDefined();
  expect(res!.headers['cache-control']).toBe('no-store');
  expect(res!.body.statusCode).toBeUndefined();
  expect(Object.keys(res!.body).sort()).toEqual(
    Object.keys(res!.body)
      .filter((k) => ['error', 'code', 'message', 'errors', 'requestId'].includes(k))
      .sort(),
  );
}

/** One answer of `sendAsWritten`: its body parsed as JSON when there is one. */
export interface WrittenAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: any;
}

/**
 * Sends one request with node:http, which puts `target` on the request line exactly as written
 * (supertest would normalize it), with `body` as JSON when given.
 */
export function sendAsWritten(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<WrittenAnswer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path: target,
        headers: {
          ...headers,
          ...(payload === undefined
            ? {}
            : {
                'content-type': 'application/json',
                'content-length': String(Buffer.byteLength(payload)),
              }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            body: text ? JSON.parse(text) : undefined,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
