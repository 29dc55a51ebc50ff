import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOfJson } from '../common/etag';
import { secretFieldOf } from './secret-in-answer';

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

/** Replies whose object body etagPreSerialization has looked at, and what it found. */
const inspected = new WeakMap<FastifyReply, 'resource' | 'other'>();

function taggable(request: FastifyRequest, reply: FastifyReply): boolean {
  return ETAG_METHODS.has(request.method) && (reply.statusCode === 200 || reply.statusCode === 201);
}

/**
 * Fastify preSerialization hook (docs/api.md §6): notes whether a 200/201 body is one resource.
 * The tag itself is computed in etagOnSend from the text Fastify serialized, with etagOfJson, the
 * function behind the services' etagOf(view): views serialize canonically (see etag.ts), so a
 * tag read from a GET (or a POST, PATCH or DELETE) matches inside the service.
 */
export function etagPreSerialization(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: Error | null, payload?: unknown) => void,
): void {
  if (taggable(request, reply)) {
    inspected.set(reply, isSingleResource(payload) ? 'resource' : 'other');
  }
  done(null, payload);
}

/** Whether a body that went out as text (an idempotent replay) is one resource. */
function isSingleResourceText(reply: FastifyReply, payload: unknown): payload is string {
  if (
    typeof payload !== 'string' ||
    !payload.startsWith('{') ||
    !String(reply.getHeader('content-type')).startsWith('application/json')
  ) {
    return false;
  }
  try {
    return isSingleResource(JSON.parse(payload));
  } catch {
    return false;
  }
}

/**
 * The text of the resource in a single-resource body: the body itself, less the secret that a
 * route declared with @SecretInAnswer() shows beside the resource once, so that its tag is the one
 * GET gives.
 */
function resourceText(payload: string, secretField: string | undefined): string {
  if (secretField === undefined) return payload;
  const body = JSON.parse(payload) as Record<string, unknown>;
  if (!Object.hasOwn(body, secretField)) return payload;
  delete body[secretField];
  return JSON.stringify(body);
}

/**
 * Fastify onSend hook, after the idempotency hook: a 200/201 whose body is one resource gets
 * `ETag: etagOfJson(resource text)`, whether the handler returned it or it is an idempotent
 * replay stored as text. Then a GET whose If-None-Match holds the current tag answers 304
 * without a body.
 */
export function etagOnSend(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: Error | null, payload?: unknown) => void,
): void {
  if (!taggable(request, reply)) return done(null, payload);
  const seen = inspected.get(reply);
  const resource = seen === undefined ? isSingleResourceText(reply, payload) : seen === 'resource';
  if (!resource || typeof payload !== 'string') return done(null, payload);
  const etag = etagOfJson(resourceText(payload, secretFieldOf(request)));
  void reply.header('etag', etag);
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
