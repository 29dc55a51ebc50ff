/**
 * The fan-out baseline (npm run bench:events): a bare Node sender doing what the service's
 * dispatcher does on the wire for each delivery, and nothing else: sign the event's body with
 * the endpoint's secret (standardwebhooks' Webhook.sign, as src/webhooks/webhook-sender.ts) and
 * POST it with the same headers and the same connection handling (connections kept alive and
 * reused, Node's Agent with keepAlive), WEBHOOK_CONCURRENCY requests at once. No database: the difference to
 * the service is what its outbox costs (claiming, reading, recording each attempt).
 *
 * Started with the path of a JSON file: { endpoints: [{ url, secret }], events: [{ id, body }],
 * concurrency }. Every event goes to every endpoint, event by event.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { Webhook } from 'standardwebhooks';

interface Job {
  endpoints: { url: string; secret: string }[];
  events: { id: string; body: string }[];
  concurrency: number;
}

const job = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Job;
const signers = job.endpoints.map((e) => ({ url: new URL(e.url), webhook: new Webhook(e.secret) }));
const agent = new Agent({ keepAlive: true });
const total = job.events.length * signers.length;
let next = 0;
let failed = 0;

function post(i: number): Promise<void> {
  const event = job.events[Math.floor(i / signers.length)];
  const { url, webhook } = signers[i % signers.length];
  const at = new Date();
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(event.body),
        'user-agent': 'bench-webhook-sender/1',
        'webhook-id': event.id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': webhook.sign(event.id, at, event.body),
      },
    });
    // As the service: the answer's status settles the attempt; its body is read and dropped.
    req.on('response', (res) => {
      if ((res.statusCode ?? 0) >= 300) failed++;
      res.resume();
      res.on('error', () => undefined);
      resolve();
    });
    req.on('error', () => {
      failed++;
      resolve();
    });
    req.end(event.body);
  });
}

async function worker(): Promise<void> {
  while (next < total) await post(next++);
}

void Promise.all(Array.from({ length: job.concurrency }, worker)).then(() => {
  agent.destroy();
  process.stdout.write(JSON.stringify({ sent: total, failed }) + '\n');
});
