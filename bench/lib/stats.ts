import { loadavg } from 'node:os';

/** The middle value of `xs` (the upper one of an even count): the benches' summary of repeats. */
export const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The load average over 1, 5 and 15 minutes, written beside every figure. */
export const loadAverage = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** A progress line with the time of day. */
export function log(message: string): void {
  process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}
