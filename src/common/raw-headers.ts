/**
 * How many times the request sent the header `name` (lower case), from Node's `rawHeaders`
 * (names and values alternating, as received). Node keeps only the first of some repeated
 * headers (Authorization) and joins others with ", " (Idempotency-Key), so a header that must
 * come once is checked here.
 */
export function timesSent(rawHeaders: string[], name: string): number {
  let sent = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].length === name.length && rawHeaders[i].toLowerCase() === name) sent++;
  }
  return sent;
}
