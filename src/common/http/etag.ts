import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors';

/**
 * ETags are a hash of a resource's JSON representation, so any change a client could see
 * changes the tag. Services compare If-Match against the current representation inside the
 * transaction that writes, after locking the row, so the check and the write are one step.
 */
export function etagOf(view: unknown): string {
  return `"${createHash('sha256').update(canonicalJson(view)).digest('base64url').slice(0, 32)}"`;
}

/**
 * JSON with object keys sorted at every depth: PostgreSQL's jsonb does not keep key order, so
 * the same resource read back must hash the same as the response that created it.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : v,
  );
}

/** Throws 412 precondition_failed when an If-Match header does not match the current view. */
export function assertIfMatch(ifMatch: string | undefined, currentView: unknown): void {
  if (ifMatch === undefined) return;
  const tags = ifMatch.split(',').map((t) => t.trim());
  if (tags.includes('*') || tags.includes(etagOf(currentView))) return;
  throw new ApiError(
    'precondition_failed',
    'The resource has changed since you read it (If-Match does not match its ETag); fetch it again and retry',
    { code: 'ETAG_MISMATCH' },
  );
}

/** The If-Match request header, or undefined. */
export const IfMatch = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string | undefined => {
    const value = ctx.switchToHttp().getRequest<FastifyRequest>().headers['if-match'];
    return typeof value === 'string' && value.trim() !== '' ? value : undefined;
  },
);
