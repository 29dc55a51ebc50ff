import { MIMEType } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../common/errors';
import { withInexactNumbersMarked } from '../common/json-numbers';
import { timesSent } from '../common/raw-headers';

/** docs/api.md §6: request bodies are at most 100 KB. */
export const BODY_LIMIT_BYTES = 100 * 1024;

/**
 * The deepest nesting of objects and arrays a body may have (the API's own bodies need 3). 100 KB
 * of `[[[[…` is 50,000 levels, enough to exhaust the stack of any recursive walk (validation,
 * the idempotency fingerprint) and turn a bad request into a 500.
 */
export const MAX_BODY_NESTING = 32;

/** How deeply objects and arrays nest in a parsed JSON value, without recursion. */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_BODY_NESTING) return deepest;
    for (const child of Object.values(current)) pending.push({ value: child, depth: depth + 1 });
  }
  return deepest;
}

/**
 * Request bodies are JSON in UTF-8 only (docs/api.md §1, §3 and §6): the parser every POST, PATCH
 * and DELETE body goes through, with the envelope's MALFORMED_JSON for what it refuses.
 */
export function registerJsonBodies(fastify: FastifyInstance): void {
  // Bodies are JSON only: without this Fastify would also parse text/plain (415 instead).
  fastify.removeContentTypeParser(['text/plain']);
  // Fastify's own JSON parser (with its prototype-poisoning checks), but a parse failure becomes
  // the envelope's MALFORMED_JSON rather than a bare 400. The body is read as bytes and decoded
  // here: only UTF-8 is accepted (415 for another charset), and bytes that are not UTF-8 are a
  // 400, where Fastify's decoding would have stored U+FFFD in their place.
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser(['application/json']);
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    (request, bytes, done) => {
      // A path no route answers is a 404, whatever its body: Fastify parses the body of its
      // not-found route too, so the body is not read here.
      if (request.is404) return done(null, undefined);
      const headerError =
        ambiguousContentType(request.raw.rawHeaders, request.headers['content-type']) ??
        (bytes.length > 0 ? unsupportedEncoding(request.headers['content-encoding']) : undefined) ??
        unsupportedCharset(request.headers['content-type']);
      if (headerError) return done(headerError, undefined);
      let body: string;
      try {
        body = STRICT_UTF8.decode(bytes as Buffer);
      } catch {
        return done(malformedJson('The body is not valid UTF-8'), undefined);
      }
      // Many clients (generated ones among them) send Content-Type: application/json on every
      // request: an empty body is no body, on every method (docs/api.md §6). A route that needs
      // fields answers with the fields it misses; one that takes none, as to `{}`.
      if (body === '') return done(null, undefined);
      void parseJson(request, body, (err, parsed) => {
        let value: unknown = parsed;
        if (err) {
          // Fastify's parser also refuses valid JSON holding a `__proto__` key (or `constructor`
          // with a `prototype`): parsed again by JSON.parse, which defines every key as an own
          // data property of a plain object and never sets a prototype (ECMA-262
          // CreateDataProperty), so that the validation pipe refuses it as a `reserved_key`
          // naming its path, as it refuses `constructor` and `toString`.
          try {
            value = JSON.parse(body);
          } catch {
            return done(malformedJson('The body is not valid JSON'), undefined);
          }
        }
        if (nestingDepth(value) > MAX_BODY_NESTING) {
          const message = `The body is nested too deeply: at most ${MAX_BODY_NESTING} levels of objects and arrays`;
          return done(malformedJson(message), undefined);
        }
        // A number JSON.parse would change (12345678901234567890123) fails validation instead.
        done(null, withInexactNumbersMarked(body, value));
      });
    },
  );
}

function malformedJson(message: string): ApiError {
  return new ApiError('validation_error', message, { code: 'MALFORMED_JSON' });
}

/** UTF-8 that refuses invalid bytes instead of replacing them (a leading BOM is dropped). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The labels of UTF-8 a client may name in `charset` (WHATWG Encoding), in lower case. */
const UTF8_LABELS = new Set(['utf-8', 'utf8']);

function unsupportedMediaType(message: string): ApiError {
  return new ApiError('unsupported_media_type', message, { code: 'UNSUPPORTED_MEDIA_TYPE' });
}

/**
 * A 415 for Content-Type sent twice, or a charset named twice in it: Node keeps the first header
 * and MIMEType the first parameter, so the body would be read as one of two declared types and
 * a proxy that keeps the last could have checked the other (as with Authorization, b055eb1).
 */
function ambiguousContentType(
  rawHeaders: string[],
  contentType: string | undefined,
): ApiError | undefined {
  const twice =
    timesSent(rawHeaders, 'content-type') > 1 ||
    (contentType?.match(/;\s*charset\s*=/gi)?.length ?? 0) > 1;
  return twice
    ? unsupportedMediaType(
        'Content-Type must be sent once, naming one charset: send Content-Type: application/json',
      )
    : undefined;
}

/**
 * A 415 for a compressed body (RFC 9110 §8.4.1: a content coding the server does not accept).
 * Without it a gzip body would be read as text (a misleading MALFORMED_JSON), and plain JSON
 * that claims a coding would be taken as it is.
 */
function unsupportedEncoding(contentEncoding: string | undefined): ApiError | undefined {
  if (contentEncoding === undefined || /^\s*identity\s*$/i.test(contentEncoding)) return undefined;
  return unsupportedMediaType(
    'Request bodies must not be compressed: send the JSON without Content-Encoding',
  );
}

/**
 * A 415 for a JSON body declared in a charset other than UTF-8 (docs/api.md §1: bodies are
 * `application/json; charset=utf-8`); no charset means UTF-8 (RFC 8259).
 */
function unsupportedCharset(contentType: string | undefined): ApiError | undefined {
  if (contentType === 'application/json' || contentType === 'application/json; charset=utf-8') {
    return undefined;
  }
  let charset: string | null;
  try {
    charset = new MIMEType(contentType ?? '').params.get('charset');
  } catch {
    charset = '(unreadable)';
  }
  if (charset === null || UTF8_LABELS.has(charset.toLowerCase())) return undefined;
  return unsupportedMediaType(
    'Request bodies must be JSON in UTF-8: send Content-Type: application/json (or application/json; charset=utf-8)',
  );
}
