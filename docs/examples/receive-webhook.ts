import { createServer, IncomingMessage, Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** The JSON body of every webhook: the event exactly as GET /v0/events/{id} shows it. */
export interface BillingEvent {
  id: string;
  object: 'event';
  type: string;
  livemode: boolean;
  createdAt: string;
  data: { object: Record<string, unknown>; previousAttributes: Record<string, unknown> | null };
  request: { id: string; idempotencyKey: string | null } | null;
  actor: { type: 'apiKey' | 'operator' | 'system'; id: string | null };
}

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return typeof value === 'string' ? value : '';
}

/**
 * An HTTP server that accepts the billing service's webhooks: it verifies each request with the
 * endpoint's secret (`whsec_…`, from the create or rotateSecret answer) on the raw body, answers
 * 400 to anything that does not verify, and 204 once `handle` has taken the event. The service
 * delivers at least once: `handle` must ignore an event id it has already seen.
 */
export function createWebhookReceiver(
  secret: string,
  handle: (event: BillingEvent) => Promise<void> | void,
): Server {
  const webhook = new Webhook(secret);
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let event: BillingEvent;
      try {
        // Verify the bytes as they came: parsing and re-serializing first would break the HMAC.
        event = webhook.verify(Buffer.concat(chunks).toString('utf8'), {
          'webhook-id': header(req, 'webhook-id'),
          'webhook-timestamp': header(req, 'webhook-timestamp'),
          'webhook-signature': header(req, 'webhook-signature'),
        }) as BillingEvent;
      } catch {
        res.writeHead(400).end();
        return;
      }
      Promise.resolve(handle(event)).then(
        () => res.writeHead(204).end(),
        () => res.writeHead(500).end(), // answered with an error: the service retries later
      );
    });
  });
}
