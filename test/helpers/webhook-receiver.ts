import {
  IncomingHttpHeaders,
  IncomingMessage,
  Server,
  ServerResponse,
  createServer,
} from 'node:http';
import { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver answers to the n-th request (0-based); by default 200. */
export type Responder = (
  received: Received,
  n: number,
  res: ServerResponse,
) => void | Promise<void>;

/** A real HTTP server on 127.0.0.1 that records what it receives, as an integrator's would. */
export interface WebhookReceiver {
  url: string;
  received: Received[];
  respond(responder: Responder): void;
  /** Resolves once `count` requests have arrived (fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks'): Promise<WebhookReceiver> {
  const received: Received[] = [];
  let responder: Responder = (_r, _n, res) => {
    res.writeHead(200).end('ok');
  };
  const waiters: (() => void)[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const entry = { headers: req.headers, body, at: Date.now() };
      received.push(entry);
      waiters.forEach((w) => w());
      void Promise.resolve(responder(entry, received.length - 1, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    respond: (r) => (responder = r),
    waitFor(count, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length >= count) {
            clearTimeout(timer);
            resolve(received);
            return true;
          }
          return false;
        };
        const timer = setTimeout(
          () => reject(new Error(`received ${received.length} of ${count} webhooks in time`)),
          timeoutMs,
        );
        if (!check()) waiters.push(() => void check());
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `read` until `done` accepts its value (fails after `timeoutMs`). */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`condition not met in time; last value: ${JSON.stringify(value)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
