import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonical-json';
import { ValidationFailedError } from '../errors';

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
  throw new ValidationFailedError(
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

/** What makes two requests "the same" for a key: method, path with query string, and body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${url}\n${canonicalJson(body)}`)
    .digest('hex');
}
