import { LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import { IncomingMessage, Server as HttpServer, ServerResponse, createServer } from 'node:http';
import { Server as HttpsServer, createServer as createTlsServer } from 'node:https';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { BlockedAddressError } from './url-policy';
import { SenderOptions, WebhookSender } from './webhook-sender';

/** A self-signed certificate for `hooks.test`, used by tests only. */
const TLS = join(__dirname, '..', '..', 'test', 'fixtures', 'tls');
const key = readFileSync(join(TLS, 'hooks.test.key'), 'utf8');
const cert = readFileSync(join(TLS, 'hooks.test.crt'), 'utf8');

interface Receiver {
  port: number;
  /** The requests received, as the number of the connection each came on (1, 2, ...). */
  requests: number[];
  connections: number;
  /** What the receiver does with its n-th request (0-based); by default answers 200. */
  handle?: (n: number, req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
}

async function startReceiver(tls: boolean): Promise<Receiver> {
  const receiver: Receiver = {
    port: 0,
    requests: [],
    connections: 0,
    close: () => Promise.resolve(),
  };
  const connectionOf = new WeakMap<object, number>();
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const n = receiver.requests.push(connectionOf.get(req.socket) ?? 0) - 1;
      if (receiver.handle) receiver.handle(n, req, res);
      else res.writeHead(200).end('ok');
    });
  };
  const server: HttpServer | HttpsServer = tls
    ? createTlsServer({ key, cert }, onRequest)
    : createServer(onRequest);
  server.on(tls ? 'secureConnection' : 'connection', (socket: object) => {
    connectionOf.set(socket, ++receiver.connections);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

const signer = new Webhook(Buffer.from('a-test-secret-of-32-bytes-length').toString('base64'));

function send(sender: WebhookSender, url: string, id = 'evt_1') {
  return sender.send({ url, id, body: '{"id":"evt_1"}', signers: [signer] });
}

describe('WebhookSender', () => {
  let receiver: Receiver;
  let sender: WebhookSender;
  const senderWith = (options: Partial<SenderOptions>) =>
    (sender = new WebhookSender({ timeoutMs: 5_000, allowPrivateNetworks: true, ...options }));

  afterEach(async () => {
    sender?.close();
    await receiver?.close();
  });

  it('keeps the connection for the next attempts to the same endpoint', async () => {
    receiver = await startReceiver(false);
    senderWith({});
    const url = `http://127.0.0.1:${receiver.port}/hooks`;
    for (let i = 0; i < 3; i++) {
      expect(await send(sender, url)).toMatchObject({ succeeded: true, statusCode: 200 });
    }
    expect(receiver.requests).toEqual([1, 1, 1]);
  });

  it('lets an attempt outlast the idle time of kept connections, up to its timeout', async () => {
    receiver = await startReceiver(false);
    senderWith({ idleMs: 100, timeoutMs: 2_000 });
    const url = `http://127.0.0.1:${receiver.port}/hooks`;
    receiver.handle = (_n, _req, res) => setTimeout(() => res.writeHead(200).end('ok'), 400);
    expect(await send(sender, url)).toMatchObject({ succeeded: true, statusCode: 200 });
    // Idle longer than idleMs: the kept connection is closed, and the next attempt opens one.
    await new Promise((r) => setTimeout(r, 300));
    receiver.handle = undefined;
    expect(await send(sender, url)).toMatchObject({ succeeded: true });
    expect(receiver.requests).toEqual([1, 2]);
  });

  it('fails an attempt that gets no answer within the timeout', async () => {
    receiver = await startReceiver(false);
    senderWith({ timeoutMs: 300 });
    receiver.handle = () => undefined;
    const outcome = await send(sender, `http://127.0.0.1:${receiver.port}/hooks`);
    expect(outcome).toMatchObject({
      succeeded: false,
      statusCode: null,
      error: 'timeout: no answer within 0.3 seconds',
    });
  });

  it('closes a connection whose answer body trickles on past the timeout; the status stands', async () => {
    receiver = await startReceiver(false);
    senderWith({ timeoutMs: 300 });
    const url = `http://127.0.0.1:${receiver.port}/hooks`;
    let closed = false;
    receiver.handle = (n, req, res) => {
      if (n > 0) return void res.writeHead(200).end('ok');
      res.writeHead(200);
      const trickle = setInterval(() => res.write('x'), 20);
      req.socket.on('close', () => {
        clearInterval(trickle);
        closed = true;
      });
    };
    const outcome = await send(sender, url);
    expect(outcome).toMatchObject({ succeeded: true, statusCode: 200 });
    // The attempt lasts until its body is cut at the timeout, so its slot is held as long.
    expect(outcome.durationMs).toBeGreaterThanOrEqual(299);
    for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(true);
    // The next attempt opens a connection of its own.
    expect(await send(sender, url)).toMatchObject({ succeeded: true });
    expect(receiver.requests).toEqual([1, 2]);
  });

  it('reads at most 64 KiB of an answer body, then closes the connection', async () => {
    receiver = await startReceiver(false);
    senderWith({});
    const url = `http://127.0.0.1:${receiver.port}/hooks`;
    let written = 0;
    let closed = false;
    receiver.handle = (_n, req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 120);
      const more = () => {
        while (written < 64 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
        if (written >= 64 * 1024 * 1024) res.end();
      };
      res.on('drain', more);
      req.socket.on('close', () => (closed = true));
      more();
    };
    expect(await send(sender, url)).toMatchObject({ succeeded: true, statusCode: 200 });
    for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 20));
    // Closed by the sender long before the 64 MB offered went out (read whole, the connection
    // would have been kept for the next attempt).
    expect(closed).toBe(true);
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  describe('with the address rules on (https, a name the test resolves)', () => {
    let answers: (() => LookupAddress[] | Promise<LookupAddress[]>)[];
    let resolved: number;
    let peerAllowed: boolean;
    const url = () => `https://hooks.test:${receiver.port}/hooks`;
    const loopback = () => [{ address: '127.0.0.1', family: 4 }];

    beforeEach(async () => {
      receiver = await startReceiver(true);
      resolved = 0;
      peerAllowed = true;
      answers = [];
      senderWith({
        allowPrivateNetworks: false,
        ca: cert,
        // The receiver is on loopback: these stand in for a public name and address.
        resolve: (host) => {
          expect(host).toBe('hooks.test');
          const answer = answers[resolved++] ?? loopback;
          return Promise.resolve(answer());
        },
        isAllowed: () => peerAllowed,
      });
    });

    it('resolves and checks the name at every attempt, on a kept connection too', async () => {
      answers = [
        loopback,
        () => {
          throw new BlockedAddressError('hooks.test resolves to 10.0.0.1, which is not public');
        },
        loopback,
      ];
      expect(await send(sender, url())).toMatchObject({ succeeded: true });
      const refused = await send(sender, url());
      expect(refused).toMatchObject({ succeeded: false, statusCode: null });
      expect(refused.error).toBe('refused: hooks.test resolves to 10.0.0.1, which is not public');
      expect(await send(sender, url())).toMatchObject({ succeeded: true });
      expect(resolved).toBe(3);
      // The refused attempt sent nothing; the others shared one TLS connection.
      expect(receiver.requests).toEqual([1, 1]);
    });

    it('does not use a kept connection whose peer address fails the check', async () => {
      expect(await send(sender, url())).toMatchObject({ succeeded: true });
      peerAllowed = false;
      const refused = await send(sender, url());
      expect(refused).toMatchObject({ succeeded: false, statusCode: null });
      expect(refused.error).toMatch(/^refused: the kept connection's peer 127\.0\.0\.1 /);
      expect(receiver.requests).toEqual([1]);
    });

    it('counts the resolution in the timeout, and stops it when aborted', async () => {
      sender.close();
      senderWith({
        allowPrivateNetworks: false,
        timeoutMs: 300,
        resolve: () => new Promise<LookupAddress[]>(() => undefined),
      });
      expect(await send(sender, url())).toMatchObject({
        succeeded: false,
        error: 'timeout: no answer within 0.3 seconds',
        aborted: false,
      });
      const abort = new AbortController();
      const pending = sender.send({
        url: url(),
        id: 'evt_1',
        body: '{}',
        signers: [signer],
        signal: abort.signal,
      });
      abort.abort();
      expect(await pending).toMatchObject({ succeeded: false, error: 'aborted', aborted: true });
      expect(receiver.requests).toEqual([]);
    });

    it('refuses a name that does not resolve, with its reason', async () => {
      answers = [
        () => {
          const err: NodeJS.ErrnoException = new Error('getaddrinfo ENOTFOUND hooks.test');
          err.code = 'ENOTFOUND';
          throw err;
        },
      ];
      const outcome = await send(sender, url());
      expect(outcome).toMatchObject({ succeeded: false, statusCode: null });
      expect(outcome.error).toBe('ENOTFOUND: getaddrinfo ENOTFOUND hooks.test');
      expect(receiver.requests).toEqual([]);
    });
  });

  it('retries once on a new connection when a kept one was closed as the attempt began', async () => {
    receiver = await startReceiver(false);
    senderWith({});
    const url = `http://127.0.0.1:${receiver.port}/hooks`;
    // The second request (on the kept connection) is dropped without an answer, as a server
    // closing an idle connection at that moment would.
    receiver.handle = (n, req, res) => {
      if (n === 1) req.socket.destroy();
      else res.writeHead(200).end('ok');
    };
    expect(await send(sender, url)).toMatchObject({ succeeded: true });
    expect(await send(sender, url)).toMatchObject({ succeeded: true, statusCode: 200 });
    expect(receiver.requests).toEqual([1, 1, 2]);
  });

  it('does not retry a new connection that fails', async () => {
    receiver = await startReceiver(false);
    senderWith({});
    receiver.handle = (_n, req) => req.socket.destroy();
    const outcome = await send(sender, `http://127.0.0.1:${receiver.port}/hooks`);
    expect(outcome).toMatchObject({ succeeded: false, statusCode: null });
    expect(outcome.error).toMatch(/^ECONNRESET: /);
    expect(receiver.requests).toEqual([1]);
  });

  it('does not retry a kept connection that answered', async () => {
    receiver = await startReceiver(false);
    senderWith({});
    const url = `http://127.0.0.1:${receiver.port}/hooks`;
    receiver.handle = (n, _req, res) => res.writeHead(n === 1 ? 503 : 200).end('');
    expect(await send(sender, url)).toMatchObject({ succeeded: true });
    expect(await send(sender, url)).toMatchObject({
      succeeded: false,
      statusCode: 503,
      error: 'answered 503',
    });
    expect(receiver.requests).toEqual([1, 1]);
  });
});
