import { appendFileSync } from 'node:fs';
import { TEST_DIALECT } from '../test-database';

/**
 * How hard the reliability suites push. By default (CI, `npm test`, `npm run test:pg`) they run a
 * reduced form that takes a few seconds each; RELIABILITY_FULL=1 (`npm run test:reliability`)
 * runs the full form. RELIABILITY_SEED fixes the random choices (fast-check runs, load mixes,
 * kill times); the default seed is fixed so that CI is reproducible, and every suite prints it.
 */
export const FULL = process.env.RELIABILITY_FULL === '1';

export const SEED = (() => {
  const raw = process.env.RELIABILITY_SEED;
  if (raw === undefined || raw === '') return 20260131;
  if (!/^-?\d{1,10}$/.test(raw))
    throw new Error(`RELIABILITY_SEED must be an integer (got ${raw})`);
  return Number(raw);
})();

/** The reduced value by default, the full one under RELIABILITY_FULL=1. */
export function scale(reduced: number, full: number): number {
  return FULL ? full : reduced;
}

/** A small deterministic random source (mulberry32) for load mixes and kill times. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

/** What a suite did, printed at its end and appended to RELIABILITY_REPORT (JSON lines) when set. */
export interface Figures {
  requests?: number;
  faults?: number;
  invariantChecks?: number;
  [name: string]: number | string | undefined;
}

export function reportFigures(suite: string, figures: Figures): void {
  const line = {
    suite,
    dialect: TEST_DIALECT,
    form: FULL ? 'full' : 'reduced',
    seed: SEED,
    ...figures,
  };
  const text = Object.entries(line)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  process.stdout.write(`[reliability] ${text}\n`);
  if (process.env.RELIABILITY_REPORT) {
    appendFileSync(process.env.RELIABILITY_REPORT, JSON.stringify(line) + '\n');
  }
}
