/**
 * The local receiver of npm run bench:events, in a process of its own (forked with an IPC
 * channel), so that the load generator in the harness never delays its answers. It answers every
 * POST 204 at once and, of the plan and price events (an endpoint's own `webhookEndpoint.*`
 * events are not counted), counts distinct deliveries (path and webhook-id), notes when the
 * first, the last and the marked ones (`marks`: the steady span of a run) arrived, and how long
 * after its event was created each one arrived (its lag). It checks the signatures of the first
 * 20 of each run with standardwebhooks.
 */
import { ChildProcess, fork } from 'node:child_process';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceiverStatus {
  count: number;
  /** performance.now() of the receiver at the first and last delivery, and at the marks. */
  first: number;
  last: number;
  fromAt: number;
  toAt: number;
  /** The largest lag, and the 99th percentile, in seconds. */
  maxLag: number;
  p99Lag: number;
  verified: number;
  forged: number;
}

type Message =
  | { type: 'secret'; path: string; secret: string }
  | { type: 'expect'; count: number | null; marks?: [number, number] }
  | { type: 'status' };

/** The receiver's own process. */
function serve(): void {
  const secrets = new Map<string, Webhook>();
  let seen = new Set<string>();
  let lags: number[] = [];
  let expected = Infinity;
  let marks: [number, number] = [0, 0];
  let s: ReceiverStatus;
  const reset = () => {
    s = { count: 0, first: 0, last: 0, fromAt: 0, toAt: 0, maxLag: 0, p99Lag: 0 } as ReceiverStatus;
    s.verified = s.forged = 0;
  };
  reset();
  const status = (): ReceiverStatus => {
    const sorted = [...lags].sort((a, b) => a - b);
    s.p99Lag = sorted[Math.floor(sorted.length * 0.99)] ?? 0;
    return { ...s, count: seen.size };
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(204).end();
      const body = Buffer.concat(chunks).toString('utf8');
      const event = JSON.parse(body) as { type: string; createdAt: string };
      const id = String(req.headers['webhook-id'] ?? '');
      const key = `${req.url} ${id}`;
      if (event.type.startsWith('webhookEndpoint.') || seen.has(key)) return;
      seen.add(key);
      const now = performance.now();
      const lag = (Date.now() - Date.parse(event.createdAt)) / 1000;
      lags.push(lag);
      s.maxLag = Math.max(s.maxLag, lag);
      if (seen.size === 1) s.first = now;
      s.last = now;
      if (seen.size === marks[0]) s.fromAt = now;
      if (seen.size === marks[1]) s.toAt = now;
      const webhook = secrets.get(req.url ?? '');
      if (webhook && s.verified + s.forged < 20) {
        try {
          webhook.verify(body, {
            'webhook-id': id,
            'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
            'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
          });
          s.verified++;
        } catch {
          s.forged++;
        }
      }
      if (seen.size === expected) process.send?.({ type: 'done', ...status() });
    });
  });
  process.on('message', (message: Message) => {
    if (message.type === 'secret') secrets.set(message.path, new Webhook(message.secret));
    if (message.type === 'expect') {
      seen = new Set();
      lags = [];
      expected = message.count ?? Infinity;
      marks = message.marks ?? [0, 0];
      reset();
    }
    if (message.type === 'status') process.send?.({ type: 'status', ...status() });
  });
  process.on('disconnect', () => process.exit(0));
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ type: 'listening', port: (server.address() as AddressInfo).port });
  });
}

/** The harness's handle on the receiver's process. */
export class Receiver {
  url = '';
  private child?: ChildProcess;
  private waiting = new Map<string, (status: ReceiverStatus) => void>();

  async start(): Promise<void> {
    const child = fork(__filename, ['serve'], {
      execArgv: ['-r', 'ts-node/register/transpile-only'],
      stdio: 'inherit',
    });
    this.child = child;
    const port = await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.on('message', (m: { type: string; port?: number } & ReceiverStatus) => {
        if (m.type === 'listening') resolve(m.port!);
        this.waiting.get(m.type)?.(m);
      });
    });
    this.url = `http://127.0.0.1:${port}`;
  }

  /** Signatures on `path` are checked with `secret`. */
  secretFor(path: string, secret: string): void {
    this.child?.send({ type: 'secret', path, secret });
  }

  /** Forgets what came so far; resolves once `expected` deliveries came (never for null). */
  expect(expected: number | null, marks?: [number, number]): Promise<ReceiverStatus> {
    this.child?.send({ type: 'expect', count: expected, marks });
    return new Promise((resolve) => this.waiting.set('done', resolve));
  }

  /** What came since the last `expect`. */
  status(): Promise<ReceiverStatus> {
    const answer = new Promise<ReceiverStatus>((resolve) => this.waiting.set('status', resolve));
    this.child?.send({ type: 'status' });
    return answer;
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.disconnect();
    await exited;
  }
}

if (require.main === module && process.argv[2] === 'serve') serve();
