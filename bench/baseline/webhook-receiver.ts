/**
 * The local receiver of npm run bench:events, in a process of its own (forked with an IPC
 * channel), so that the load generator in the harness never delays its answers. It answers every
 * POST 204 at once, counts distinct deliveries (path and webhook-id), notes when the first and
 * the last arrived, and checks the signatures of the first few of each run with standardwebhooks.
 *
 * It also notes when the count reached each of two marks (`from`, `to`): the span between them
 * is the steady part of a run, past the sender's start and before its last stragglers.
 *
 * Messages in: { type: 'secret', path, secret } | { type: 'expect', count, verify, marks? } |
 *   { type: 'status' }.
 * Messages out: { type: 'listening', port } | { type: 'first' } | { type: 'status', count } |
 *   { type: 'done', first, last, count, verified, forged, fromAt, toAt } (times in ms,
 *   performance.now()).
 */
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

type Message =
  | { type: 'secret'; path: string; secret: string }
  | { type: 'expect'; count: number | null; verify: number; marks?: [number, number] }
  | { type: 'status' };

const secrets = new Map<string, Webhook>();
let seen = new Set<string>();
let expected = Infinity;
let toVerify = 0;
let first = 0;
let last = 0;
let verified = 0;
let forged = 0;
let marks: [number, number] = [0, 0];
let fromAt = 0;
let toAt = 0;

const send = (message: object) => process.send?.(message);

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(204).end();
    const id = String(req.headers['webhook-id'] ?? '');
    const key = `${req.url} ${id}`;
    if (seen.has(key)) return;
    seen.add(key);
    const now = performance.now();
    if (seen.size === 1) {
      first = now;
      send({ type: 'first' });
    }
    last = now;
    if (seen.size === marks[0]) fromAt = now;
    if (seen.size === marks[1]) toAt = now;
    const webhook = secrets.get(req.url ?? '');
    if (webhook && toVerify > 0) {
      toVerify--;
      try {
        webhook.verify(Buffer.concat(chunks).toString('utf8'), {
          'webhook-id': id,
          'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
          'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
        });
        verified++;
      } catch {
        forged++;
      }
    }
    if (seen.size === expected) {
      send({ type: 'done', first, last, count: seen.size, verified, forged, fromAt, toAt });
    }
  });
});

process.on('message', (message: Message) => {
  if (message.type === 'secret') secrets.set(message.path, new Webhook(message.secret));
  if (message.type === 'expect') {
    seen = new Set();
    expected = message.count ?? Infinity;
    toVerify = message.verify;
    marks = message.marks ?? [0, 0];
    first = last = verified = forged = fromAt = toAt = 0;
  }
  if (message.type === 'status') {
    send({ type: 'status', count: seen.size, first, last, verified, forged });
  }
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => {
  send({ type: 'listening', port: (server.address() as AddressInfo).port });
});
