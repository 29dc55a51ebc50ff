import { Writable } from 'node:stream';

/** The app's log, kept in memory: pass `destination` to startTestApp as `logDestination`. */
export interface LogCapture {
  destination: Writable;
  /** Every line written so far, in order (one JSON object each). */
  lines: string[];
  /** The parsed lines of one request, by its request id. */
  of(requestId: string): any[];
}

export function captureLogs(): LogCapture {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return {
    destination,
    lines,
    of: (requestId) =>
      lines
        .map((l) => JSON.parse(l))
        .filter((l) => l.reqId === requestId || l.req?.id === requestId),
  };
}
