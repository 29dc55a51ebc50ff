import autocannon from 'autocannon';
import { BenchRequest } from './scenarios';

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  /** The status every response must have. */
  expectStatus: number;
  next: () => BenchRequest;
}

export interface LoadResult {
  requests: number;
  /** Responses per second over the measured duration. */
  rps: number;
  /** Latency percentiles in milliseconds, from every response's own timing. */
  p50: number;
  p99: number;
  /** Responses with another status than expected, connection errors and timeouts. */
  errors: number;
  statusCodes: Record<string, number>;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * One autocannon run: `connections` keep-alive connections, each sending the next request as
 * soon as its previous one is answered, for `durationSeconds`. Latencies are kept at full
 * precision (autocannon's own histogram rounds to whole milliseconds).
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    timeout: 30,
    requests: [
      {
        setupRequest: (request: Record<string, unknown>) => {
          const next = options.next();
          return { ...request, ...next, headers: { ...next.headers } };
        },
      },
    ],
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, time: number) => {
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = time;
  });
  const result = await instance;
  const sorted = latencies.slice(0, count).sort();
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
    statusCodes[code] = stat.count;
  }
  const unexpected = Object.entries(statusCodes)
    .filter(([code]) => Number(code) !== options.expectStatus)
    .reduce((sum, [, n]) => sum + n, 0);
  return {
    requests: count,
    rps: count / result.duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors: unexpected + result.errors + result.timeouts,
    statusCodes,
  };
}
