// A webhook receiver for the billing service that runs with plain `node`, nothing to install:
//
//   KEY=sk_test_... node docs/examples/receive-webhooks.js
//
// It listens on 127.0.0.1:4242 (RECEIVER_PORT), then creates a webhook endpoint for every event
// (`enabledEvents: ["*"]`) at its own URL through the API (API, default http://localhost:3000),
// and reads the endpoint's signing secret from that answer: the secret exists only once the
// endpoint does. Each delivery is verified as Standard Webhooks says (HMAC-SHA256 of
// "id.timestamp.body" under the secret) and printed; one that does not verify answers 400.
// Ctrl-C deletes the endpoint and stops. The service must allow http:// and 127.0.0.1:
// start it with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (development only).
'use strict';
const { createHmac, timingSafeEqual } = require('node:crypto');
const { createServer } = require('node:http');

const API = process.env.API || 'http://localhost:3000';
const PORT = Number(process.env.RECEIVER_PORT || 4242);
const KEY = process.env.KEY;
if (!KEY) {
  console.error(
    'Set KEY to an API key first: KEY=sk_test_... node docs/examples/receive-webhooks.js',
  );
  process.exit(1);
}

/** Calls the API with the key; the parsed answer, or an error naming the status and body. */
async function api(method, path, body) {
  const res = await fetch(API + path, {
    method,
    headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/**
 * True when `signatures` (the webhook-signature header: `v1,<base64>`, space-separated, two of
 * them for a day after a rotation) holds the HMAC of "id.timestamp.body" under `secret`
 * (`whsec_<base64 key>`), and the timestamp is within 5 minutes of now.
 */
function verified(secret, id, timestamp, body, signatures) {
  if (!id || !timestamp || !signatures) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    const given = Buffer.from(value || '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

let secret; // set once the endpoint is created: until then every delivery answers 503
const seen = new Set(); // delivery is at least once: an event id seen before is acknowledged only

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    if (!secret) return res.writeHead(503).end();
    // Verify the bytes as they came: parsing and re-serializing first would break the HMAC.
    const body = Buffer.concat(chunks).toString('utf8');
    const id = req.headers['webhook-id'];
    if (
      !verified(
        secret,
        id,
        req.headers['webhook-timestamp'],
        body,
        req.headers['webhook-signature'],
      )
    ) {
      console.log(`refused a request that does not verify (webhook-id ${id})`);
      return res.writeHead(400).end();
    }
    if (!seen.has(id)) {
      seen.add(id);
      const event = JSON.parse(body);
      // Act on the event here: event.type, and event.data.object as GET shows it.
      console.log(`received ${event.id} ${event.type} ${event.data.object.id} (signature ok)`);
    }
    res.writeHead(204).end();
  });
});

server.on('error', (err) => {
  console.error(`cannot listen on 127.0.0.1:${PORT} (${err.code}): set RECEIVER_PORT`);
  process.exit(1);
});

server.listen(PORT, '127.0.0.1', async () => {
  let endpoint;
  try {
    endpoint = await api('POST', '/v0/webhookEndpoints', {
      url: `http://127.0.0.1:${PORT}/webhooks`,
      enabledEvents: ['*'],
      description: 'docs/examples/receive-webhooks.js',
    });
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
  secret = endpoint.secret;
  console.log(`listening on http://127.0.0.1:${PORT}/webhooks as webhook endpoint ${endpoint.id}`);
  const stop = () =>
    api('DELETE', `/v0/webhookEndpoints/${endpoint.id}`)
      .catch((err) => console.error(err.message))
      .finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
});
