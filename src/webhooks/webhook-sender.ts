import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { BlockedAddressError, checkedLookup, urlProblem } from './url-policy';

export interface SendInput {
  url: string;
  /** The event id: the `webhook-id` header and the first part of what is signed. */
  id: string;
  /** The exact JSON text sent and signed. */
  body: string;
  /** Every secret that signs, as its signer (two during a rotation's grace period). */
  signers: Webhook[];
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /** Aborts the attempt (the dispatcher stopping); the outcome then says `aborted`. */
  signal?: AbortSignal;
}

export interface SendOutcome {
  succeeded: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** Cut short by the signal: not an attempt to count. */
  aborted: boolean;
}

const ERROR_MAX = 500;

/**
 * The Standard Webhooks headers: `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature`, one `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per secret, space
 * separated, each computed by the standardwebhooks package.
 */
function signedHeaders(
  id: string,
  body: string,
  signers: Webhook[],
  at = new Date(),
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signers.map((s) => s.sign(id, at, body)).join(' '),
  };
}

/**
 * One POST of a signed event. Success is a 2xx answer within the timeout; any other status
 * (a redirect included: it is never followed), a timeout, a refused or reset connection, or an
 * address that is not public (checked on the very address connected to, unless private networks
 * are allowed) is a failure with a reason. The answer's body is read and dropped.
 */
export function sendWebhook(input: SendInput): Promise<SendOutcome> {
  const started = performance.now();
  const done = (
    result: Omit<SendOutcome, 'durationMs' | 'aborted'>,
    aborted = false,
  ): SendOutcome => ({
    ...result,
    error: result.error === null ? null : result.error.slice(0, ERROR_MAX),
    durationMs: Math.round(performance.now() - started),
    aborted,
  });
  const problem = urlProblem(input.url, input.allowPrivateNetworks);
  if (problem !== null) {
    return Promise.resolve(
      done({ succeeded: false, statusCode: null, error: `refused: the URL ${problem}` }),
    );
  }
  const url = new URL(input.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = send(url, {
      method: 'POST',
      agent: false,
      lookup: input.allowPrivateNetworks ? undefined : checkedLookup,
      signal: input.signal,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(input.body),
        'user-agent': 'billing-api-webhooks/1',
        ...signedHeaders(input.id, input.body, input.signers),
      },
    });
    const timer = setTimeout(() => {
      settle(
        done({
          succeeded: false,
          statusCode: null,
          error: `timeout: no answer within ${input.timeoutMs / 1000} seconds`,
        }),
      );
      req.destroy();
    }, input.timeoutMs);
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      res.on('error', () => undefined);
      const ok = status >= 200 && status < 300;
      let error: string | null = null;
      if (status >= 300 && status < 400) error = `redirect (${status}) not followed`;
      else if (!ok) error = `answered ${status}`;
      settle(done({ succeeded: ok, statusCode: status, error }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (input.signal?.aborted) {
        settle(done({ succeeded: false, statusCode: null, error: 'aborted' }, true));
        return;
      }
      const reason =
        err instanceof BlockedAddressError
          ? `refused: ${err.message}`
          : `${err.code ?? 'error'}: ${err.message}`;
      settle(done({ succeeded: false, statusCode: null, error: reason }));
    });
    req.end(input.body);
  });
}
