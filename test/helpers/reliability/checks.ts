import { ERROR_STATUS } from '../../../src/common/errors/api-error';
import { Reply } from './http';

const ENVELOPE_KEYS = new Set(['error', 'code', 'message', 'errors', 'requestId']);
const STATUS_OF = ERROR_STATUS as Record<string, number>;
/**
 * Internals that must never reach a client: stack frames, driver errors, SQL with its quoting.
 * (Messages may echo what the client sent, such as a path id, so the patterns are ones that
 * random input does not produce.)
 */
const LEAKS =
  /\((\/|[A-Z]:\\)[^)]*\.(ts|js):\d+:\d+\)|QueryFailedError|SQLITE_[A-Z]|violates (unique|foreign|check|not-null)|syntax error at or near|FROM "[a-z_]+"/;

/**
 * Why `reply` breaks the contract of docs/api.md §3 and §6, or [] when it does not: a 2xx, or a
 * 4xx in the error envelope with the request id of its header, never a 5xx (but a 503 while the
 * database is away). A 304 is accepted when the request sent If-None-Match.
 */
export function replyProblems(
  reply: Reply,
  options: {
    sentIfNoneMatch?: boolean;
    secrets?: readonly string[];
    /** While the database is away: a 503 service_unavailable envelope is the right answer. */
    allowUnavailable?: boolean;
    /** The media type of a 2xx when the route answers another than JSON (an invoice's PDF). */
    produces?: string;
  } = {},
): string[] {
  const problems: string[] = [];
  const requestId = reply.headers['x-request-id'];
  if (!requestId) problems.push('no X-Request-Id header');
  const { status } = reply;
  if (status === 304 && options.sentIfNoneMatch) return problems;
  if (status >= 500 && !(status === 503 && options.allowUnavailable))
    problems.push(`answered ${status}`);
  else if (status < 200 || (status >= 300 && status < 400)) problems.push(`answered ${status}`);
  for (const secret of options.secrets ?? []) {
    if (reply.text.includes(secret)) problems.push(`shows a secret (${secret.slice(0, 4)}…)`);
  }
  if (status >= 200 && status < 300) {
    if (status === 204) {
      if (reply.text !== '') problems.push('204 with a body');
    } else if (options.produces) {
      if (!(reply.headers['content-type'] ?? '').startsWith(options.produces)) {
        problems.push(`2xx with content-type ${reply.headers['content-type']}`);
      }
    } else {
      if (!/^application\/json/.test(reply.headers['content-type'] ?? '')) {
        problems.push(`2xx with content-type ${reply.headers['content-type']}`);
      }
      if (typeof reply.body !== 'object' || reply.body === null)
        problems.push('2xx body not an object');
    }
    return problems;
  }
  const body = reply.body as Record<string, unknown> | undefined;
  if (!/^application\/json/.test(reply.headers['content-type'] ?? '')) {
    problems.push(`error with content-type ${reply.headers['content-type']}`);
  }
  if (typeof body !== 'object' || body === null) return [...problems, 'error body not an object'];
  if (typeof body.error !== 'string' || STATUS_OF[body.error] !== status) {
    problems.push(`error category ${String(body.error)} for status ${status}`);
  }
  if (typeof body.message !== 'string' || body.message === '') problems.push('no message');
  if (
    body.code !== undefined &&
    !(typeof body.code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(body.code))
  ) {
    problems.push(`code ${JSON.stringify(body.code)} is not UPPER_SNAKE`);
  }
  if (body.requestId !== requestId) problems.push('requestId differs from X-Request-Id');
  const extra = Object.keys(body).filter((k) => !ENVELOPE_KEYS.has(k));
  if (extra.length > 0) problems.push(`extra envelope keys ${extra.join(',')}`);
  if (body.errors !== undefined) {
    const ok =
      Array.isArray(body.errors) &&
      body.errors.every(
        (e: any) =>
          typeof e?.field === 'string' &&
          typeof e?.code === 'string' &&
          typeof e?.message === 'string',
      );
    if (!ok) problems.push('malformed errors[]');
  }
  if (LEAKS.test(reply.text)) problems.push('leaks internals');
  if (status === 401 && !reply.headers['www-authenticate'])
    problems.push('401 without WWW-Authenticate');
  if (status === 405 && !reply.headers['allow']) problems.push('405 without Allow');
  return problems;
}

/** Formats a failing exchange for an assertion message. */
export function describeExchange(
  method: string,
  path: string,
  sent: unknown,
  reply: Reply,
  problems: string[],
): string {
  const body = typeof sent === 'string' ? sent : JSON.stringify(sent);
  return (
    `${method} ${path.slice(0, 300)}\nbody: ${String(body).slice(0, 500)}\n` +
    `=> ${reply.status} ${reply.text.slice(0, 500)}\nproblems: ${problems.join('; ')}`
  );
}

/** Occurrences of any of `secrets` (or of any API key) in `texts`, for secrecy scans. */
export function findSecrets(texts: Iterable<string>, secrets: Iterable<string>): string[] {
  const wanted = [...new Set(secrets)].filter((s) => s.length >= 6);
  const found: string[] = [];
  for (const text of texts) {
    const key = /sk_(live|test)_[0-9A-Za-z]{32}/.exec(text);
    if (key) found.push(`API key ${key[0].slice(0, 12)}… in: ${text.slice(0, 200)}`);
    for (const secret of wanted) {
      if (text.includes(secret)) found.push(`${secret.slice(0, 4)}… in: ${text.slice(0, 200)}`);
    }
  }
  return found;
}
