import {
  Agent as HttpAgent,
  ClientRequest,
  IncomingMessage,
  request as httpRequest,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { LookupAddress } from 'node:dns';
import { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import {
  BlockedAddressError,
  checkUrl,
  hostOf,
  isPublicAddress,
  resolvePublic,
} from './url-policy';

export interface SendInput {
  url: string;
  /** The event id: the `webhook-id` header and the first part of what is signed. */
  id: string;
  /** The exact JSON text sent and signed. */
  body: string;
  /** Every secret that signs, as its signer (two during a rotation's grace period). */
  signers: Webhook[];
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

export interface SenderOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /** How long an idle connection is kept for the next attempt (shorter if the server says so). */
  idleMs?: number;
  /** Resolves a name and refuses it unless every address is public (tests replace it). */
  resolve?: (host: string) => Promise<LookupAddress[]>;
  /** Whether a connection may be used with this peer address (tests replace it). */
  isAllowed?: (address: string) => boolean;
  /** Certificate authorities to trust instead of Node's own (tests trust their own). */
  ca?: string;
}

const ERROR_MAX = 500;
/**
 * Idle connections are closed after 4 s, under the 5 s that Node's HTTP server (and many others)
 * keep them: a server that announces less (`Keep-Alive: timeout=N`) is trusted to N - 1 s.
 */
const IDLE_MS = 4_000;
/**
 * The most of an answer's body read (and dropped): past it, or past the attempt's timeout, the
 * connection is closed rather than kept, so that no receiver holds one open by trickling a body.
 */
const BODY_MAX_BYTES = 64 * 1024;
/** Errors of a kept-alive connection that the server closed as the attempt began. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

function reasonOf(err: NodeJS.ErrnoException): string {
  return err instanceof BlockedAddressError
    ? `refused: ${err.message}`
    : `${err.code ?? 'error'}: ${err.message}`;
}

/**
 * Makes webhook attempts: one POST of a signed event each. Success is a 2xx answer within the
 * timeout; any other status (a redirect included: it is never followed), a timeout, a refused or
 * reset connection, or an address that is not public (unless private networks are allowed) is a
 * failure with a reason. The outcome is the status; the answer's body is read and dropped, up to
 * BODY_MAX_BYTES and within the attempt's timeout, and the attempt ends with it: a longer or
 * slower body closes the connection (the outcome stands: it is the status).
 *
 * Connections are kept alive and reused by the next attempt to the same host and port, as
 * Node's agents do, so that a busy endpoint is not paid a new connection (and TLS handshake) per
 * event. The address rules hold at every attempt all the same: the URL's name is resolved and
 * every address checked first; a new connection goes to one of those addresses (no second lookup
 * that a rebinding DNS server could answer otherwise); a kept connection is used only when its
 * peer's address passes the check again. A kept connection that the server closed as the attempt
 * began (reset before any answer) is retried once on a new one.
 */
export class WebhookSender {
  private readonly agents: { http: HttpAgent; https: HttpsAgent };
  private readonly resolve: (host: string) => Promise<LookupAddress[]>;
  private readonly isAllowed: (address: string) => boolean;

  constructor(private readonly options: SenderOptions) {
    const agentOptions = { keepAlive: true, timeout: options.idleMs ?? IDLE_MS };
    this.agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
    this.resolve = options.resolve ?? resolvePublic;
    this.isAllowed = options.isAllowed ?? isPublicAddress;
  }

  /** Closes the kept connections. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  send(input: SendInput): Promise<SendOutcome> {
    const started = performance.now();
    const done = (
      result: Omit<SendOutcome, 'durationMs' | 'aborted'>,
      aborted = false,
    ): SendOutcome => ({
      ...result,
      error: result.error?.slice(0, ERROR_MAX) ?? null,
      durationMs: Math.round(performance.now() - started),
      aborted,
    });
    const failed = (error: string) => done({ succeeded: false, statusCode: null, error });
    const { allowPrivateNetworks, timeoutMs } = this.options;
    const checked = checkUrl(input.url, allowPrivateNetworks);
    if (checked.url === null) return Promise.resolve(failed(`refused: the URL ${checked.problem}`));
    const { url } = checked;
    const secure = url.protocol === 'https:';
    // The Standard Webhooks headers: the signature is one `v1,<base64 HMAC-SHA256 of
    // "id.timestamp.body">` per secret, space separated, each made by the standardwebhooks package.
    const at = new Date();
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(input.body),
      'user-agent': 'billing-api-webhooks/1',
      'webhook-id': input.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': input.signers.map((s) => s.sign(input.id, at, input.body)).join(' '),
    };
    const { signal } = input;

    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      let req: ClientRequest | undefined;
      let answer: IncomingMessage | undefined;
      // The timeout and the signal cover the whole attempt, the name's resolution included, and
      // the reading of an answer's body: then the outcome is the status, and the body is cut.
      const settle = (outcome: SendOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const onAbort = () => {
        settle(done({ succeeded: false, statusCode: null, error: 'aborted' }, true));
        req?.destroy();
      };
      const timer = setTimeout(() => {
        if (answer) {
          answer.destroy();
          return;
        }
        settle(failed(`timeout: no answer within ${timeoutMs / 1000} seconds`));
        req?.destroy();
      }, timeoutMs);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });

      const post = (addresses: LookupAddress[] | undefined, reuse: boolean) => {
        if (settled) return;
        const current = (req = (secure ? httpsRequest : httpRequest)(url, {
          method: 'POST',
          agent: reuse ? (secure ? this.agents.https : this.agents.http) : false,
          lookup: addresses && fromResolution(addresses),
          headers,
          ...(secure && this.options.ca !== undefined ? { ca: this.options.ca } : {}),
        }));
        current.on('socket', (socket) => {
          // A new connection's address was checked by `lookup`; a kept one's is checked here.
          const peer = socket.remoteAddress;
          if (addresses && current.reusedSocket && (peer === undefined || !this.isAllowed(peer))) {
            current.destroy(
              new BlockedAddressError(`the kept connection's peer ${peer} is not a public address`),
            );
          }
        });
        current.on('response', (res) => {
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          let error: string | null = null;
          if (status >= 300 && status < 400) error = `redirect (${status}) not followed`;
          else if (!ok) error = `answered ${status}`;
          // The attempt (and its slot) lasts until the body is read or cut (BODY_MAX_BYTES, or
          // the timer): a receiver that trickles a body holds no more connections than attempts.
          answer = res;
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > BODY_MAX_BYTES) res.destroy();
          });
          res.on('error', () => undefined);
          res.on('close', () => settle(done({ succeeded: ok, statusCode: status, error })));
        });
        current.on('error', (err: NodeJS.ErrnoException) => {
          // Settled: answered (an answer is never retried), timed out or aborted.
          if (settled) return;
          if (reuse && current.reusedSocket && STALE_CONNECTION.has(err.code ?? '')) {
            post(addresses, false);
            return;
          }
          settle(failed(reasonOf(err)));
        });
        current.end(input.body);
      };

      if (allowPrivateNetworks) return post(undefined, true);
      Promise.resolve(hostOf(url))
        .then(this.resolve)
        .then(
          (addresses) => post(addresses, true),
          (err: NodeJS.ErrnoException) => settle(failed(reasonOf(err))),
        );
    });
  }
}

/** A `lookup` for http(s).request that answers from a resolution already checked. */
function fromResolution(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = ({ 4: 4, 6: 6, IPv4: 4, IPv6: 6 } as Record<string, number>)[
      String(options.family)
    ];
    const usable = family ? addresses.filter((a) => a.family === family) : addresses;
    if (usable.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`no IPv${family} address`);
      err.code = 'ENOTFOUND';
      callback(err, '');
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, usable[0].address, usable[0].family);
  };
}
