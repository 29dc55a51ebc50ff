/**
 * `Authorization: Bearer <token>` as RFC 7235 section 2.1 and RFC 6750 section 2.1 define it:
 * the scheme name in any case (`bearer`, `BEARER`), then one or more spaces (SP only: a tab is
 * not allowed there), then one token68 / b64token and nothing else. Leading and trailing
 * whitespace of the field value is not part of it (the HTTP parser strips it).
 */
const BEARER_CREDENTIALS = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * The token of a well-formed bearer Authorization header, or undefined for anything else (no
 * header, another scheme, a malformed one). The one parser of this header: the guard and the
 * rate limiter must agree on which key a request carries.
 */
export function bearerToken(header: unknown): string | undefined {
  if (typeof header !== 'string') return undefined;
  return BEARER_CREDENTIALS.exec(header)?.[1];
}
