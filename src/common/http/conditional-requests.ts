import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf } from './etag';

const ETAG_METHODS = new Set(['GET', 'HEAD', 'POST', 'PATCH', 'DELETE']);

/** One resource object (it has `id` and `object`); a list `{ data, pagination }` is not. */
export function isSingleResource(body: unknown): body is { id: string; object: string } {
  return (
    body !== null &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    typeof (body as { id?: unknown }).id === 'string' &&
    typeof (body as { object?: unknown }).object === 'string'
  );
}

/** If-None-Match: `*` or a list of tags, compared weakly (a `W/` prefix is ignored). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || strip(t) === strip(etag));
}

/** Replies whose object body etagPreSerialization has looked at. */
const inspected = new WeakSet<FastifyReply>();

function taggable(request: FastifyRequest, reply: FastifyReply): boolean {
  return ETAG_METHODS.has(request.method) && (reply.statusCode === 200 || reply.statusCode === 201);
}

/**
 * Fastify preSerialization hook (API.md section 6): a 200/201 whose body is one resource gets
 * `ETag: etagOf(body)`, the same function services use in assertIfMatch, so a tag read from a
 * GET (or a POST, PATCH or DELETE) matches inside the service. Computed from the object the
 * handler returned, before it is serialized, so the JSON is never parsed back.
 */
export function etagPreSerialization(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: Error | null, payload?: unknown) => void,
): void {
  if (taggable(request, reply)) {
    inspected.add(reply);
    if (isSingleResource(payload)) void reply.header('etag', etagOf(payload));
  }
  done(null, payload);
}

/**
 * Fastify onSend hook, after the idempotency hook: a body that went out as text (an idempotent
 * replay) gets its ETag here, from the parsed JSON. Then a GET whose If-None-Match holds the
 * current tag answers 304 without a body.
 */
export function etagOnSend(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: Error | null, payload?: unknown) => void,
): void {
  if (!taggable(request, reply)) return done(null, payload);
  let etag = reply.getHeader('etag') as string | undefined;
  if (etag === undefined) {
    // Already seen as an object (a list, say): nothing to tag, no need to parse it back.
    if (inspected.has(reply)) return done(null, payload);
    if (
      typeof payload !== 'string' ||
      !payload.startsWith('{') ||
      !String(reply.getHeader('content-type')).startsWith('application/json')
    ) {
      return done(null, payload);
    }
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      return done(null, payload);
    }
    if (!isSingleResource(body)) return done(null, payload);
    etag = etagOf(body);
    void reply.header('etag', etag);
  }
  const ifNoneMatch = request.headers['if-none-match'];
  if (
    (request.method === 'GET' || request.method === 'HEAD') &&
    reply.statusCode === 200 &&
    matchesIfNoneMatch(ifNoneMatch, etag)
  ) {
    void reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    return done(null, null);
  }
  done(null, payload);
}
