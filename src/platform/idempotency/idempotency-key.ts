import { createHmac, hkdfSync } from 'node:crypto';
import { canonicalJson } from '../../common/canonical-json';
import { ValidationFailedError } from '../../common/errors';
import { timesSent } from '../../common/raw-headers';

/** The methods an Idempotency-Key applies to; on GET (safe by definition) it is ignored. */
export const IDEMPOTENT_METHODS = new Set(['POST', 'PATCH', 'DELETE']);

const KEY = /^[\x20-\x7e]{1,255}$/;

/**
 * The Idempotency-Key header, or undefined when absent. Any 1-255 printable ASCII characters
 * (a UUID v4 is the usual choice); anything else is a 400 so that a client never believes a
 * request was protected when it was not.
 */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header === 'string' && KEY.test(header)) return header;
  throw invalidKey();
}

/**
 * The request's Idempotency-Key (parseIdempotencyKey), refused when the header is sent more
 * than once: Node joins repeated headers with ", ", and `k1` and `k2` sent as two headers must
 * not become the key `k1, k2` (nor two equal headers the key `k, k`).
 */
export function idempotencyKeyOf(request: {
  headers: Record<string, string | string[] | undefined>;
  raw: { rawHeaders: string[] };
}): string | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  if (timesSent(request.raw.rawHeaders, 'idempotency-key') > 1) throw invalidKey();
  return parseIdempotencyKey(header);
}

function invalidKey(): ValidationFailedError {
  return new ValidationFailedError(
    [
      {
        field: 'Idempotency-Key',
        code: 'invalid_idempotency_key',
        message: 'must be 1-255 printable ASCII characters, sent once (a UUID is a good choice)',
      },
    ],
    'The Idempotency-Key header is invalid',
    'INVALID_IDEMPOTENCY_KEY',
  );
}

/** HKDF label of the fingerprint key: a key of its own, never the encryption key itself. */
const FINGERPRINT_INFO = 'billing-api idempotency request fingerprint v1';

/** The key of request fingerprints, derived from ENCRYPTION_KEY with HKDF. */
export function fingerprintKey(encryptionKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), FINGERPRINT_INFO, 32));
}

/**
 * What makes two requests "the same" for a key: method, the path of the route reached, the
 * query and the body (a request without a body is `{}`, docs/decisions.md). A keyed hash (HMAC-SHA256 under a key derived from ENCRYPTION_KEY): a
 * body may hold an account number, and a plain hash of it would let anyone who reads the
 * database confirm a guess of that number without the key (docs/api.md §5.5).
 */
export function requestFingerprint(
  key: Buffer,
  request: { method: string; path: string; query?: unknown; body: unknown },
): string {
  return createHmac('sha256', key)
    .update(
      `${request.method.toUpperCase()} ${request.path}\n${canonicalJson(request.query ?? {})}\n${canonicalJson(request.body ?? {})}`,
    )
    .digest('hex');
}
