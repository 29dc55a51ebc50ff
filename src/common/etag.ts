import { hash } from 'node:crypto';
import { ApiError } from './errors';

/**
 * ETags are a hash of a resource's JSON representation as it is sent, so any change a client
 * could see changes the tag. That text is canonical because every view is: its fields are
 * written in a fixed order by its mapper (toPlanResponse, ...), metadata keys come sorted
 * (sortedMetadata) and price properties in their model's order (canonicalProperties), so a
 * resource read back from PostgreSQL's jsonb, which reorders keys, serializes exactly as the
 * response that wrote it. Services compare If-Match against the current representation inside
 * the transaction that writes, after locking the row, so the check and the write are one step.
 */
export function etagOf(view: unknown): string {
  return etagOfJson(JSON.stringify(view));
}

/** The ETag of a representation already serialized (what Fastify sends). */
export function etagOfJson(json: string): string {
  return `"${hash('sha256', json, 'base64url').slice(0, 32)}"`;
}

/**
 * Throws 412 precondition_failed when an If-Match header does not match the current view. An
 * empty If-Match lists no tag, so it matches nothing (RFC 9110 §13.1.1): a client that sends the
 * header means the write to be conditional, and an empty value is most likely an ETag it failed
 * to read (`If-Match: $ETAG` with ETAG unset), which must not become an unconditional write.
 */
export function assertIfMatch(ifMatch: string | undefined, currentView: unknown): void {
  if (ifMatch === undefined) return;
  const tags = ifMatch.split(',').map((t) => t.trim());
  if (tags.includes('*') || tags.includes(etagOf(currentView))) return;
  throw new ApiError(
    'precondition_failed',
    tags.every((t) => t === '')
      ? 'If-Match is empty, so it matches no version of the resource: send the ETag you read, or leave the header out for an unconditional write'
      : 'The resource has changed since you read it (If-Match does not match its ETag); fetch it again and retry',
    { code: 'ETAG_MISMATCH' },
  );
}
