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

/** Canonical array-index keys ("0", "7", "42"), which JavaScript orders first, by value. */
function isIndexKey(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295;
}

/**
 * The order canonicalJson puts keys in: as `Object.fromEntries` of the keys sorted would
 * enumerate them (index-like keys first by value, the others by code unit), so tags stay the
 * same as when it was computed that way.
 */
function keyOrder(a: string, b: string): number {
  const ai = isIndexKey(a);
  const bi = isIndexKey(b);
  if (ai || bi) return ai && bi ? Number(a) - Number(b) : ai ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function canonical(value: unknown, key: string): string | undefined {
  if (value !== null && typeof value === 'object' && 'toJSON' in value) {
    const { toJSON } = value;
    if (typeof toJSON === 'function') value = (toJSON as (key: string) => unknown).call(value, key);
  }
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          out += `${i > 0 ? ',' : ''}${canonical(value[i], String(i)) ?? 'null'}`;
        }
        return `${out}]`;
      }
      const record = value as Record<string, unknown>;
      let out = '{';
      for (const k of Object.keys(record).sort(keyOrder)) {
        const v = canonical(record[k], k);
        if (v !== undefined) out += `${out.length > 1 ? ',' : ''}${JSON.stringify(k)}:${v}`;
      }
      return `${out}}`;
    }
    case 'bigint':
      return JSON.stringify(value); // throws, as JSON.stringify does
    default:
      return undefined; // undefined, functions and symbols: left out, as JSON.stringify does
  }
}

/**
 * JSON with object keys sorted at every depth: PostgreSQL's jsonb does not keep key order, so
 * the same resource read back must hash the same as the response that created it. Otherwise
 * exactly JSON.stringify (toJSON, undefined left out or null in arrays), written out by hand:
 * a replacer that rebuilds every object costs twice as much, and the ETag is on every response.
 */
export function canonicalJson(value: unknown): string {
  return canonical(value, '') as string;
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
