/**
 * What the first AsyncLocalStorage.run() costs every later await in the process, on the Node that
 * runs this script: a loop of awaits, timed before and after one run(). On Node 20 the first run()
 * installs promise hooks for the life of the process (every later await pays for them); Node 24
 * keeps the context in AsyncContextFrame and installs none.
 *
 *   npx ts-node --transpile-only bench/async-context-cost.ts [awaits] [rounds]
 * Each round starts a fresh process, so that every "before" really is before the first run().
 */
import { spawnSync } from 'node:child_process';
import { AsyncLocalStorage } from 'node:async_hooks';

async function awaitLoop(count: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await Promise.resolve();
  return Number(process.hrtime.bigint() - started) / count;
}

async function child(count: number): Promise<void> {
  await awaitLoop(count); // warm-up
  const before = await awaitLoop(count);
  const storage = new AsyncLocalStorage<number>();
  await storage.run(1, async () => {
    await Promise.resolve();
  });
  const after = await awaitLoop(count);
  process.stdout.write(JSON.stringify({ before, after }) + '\n');
}

function parent(count: number, rounds: number): void {
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const run = spawnSync(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', __filename, '--child', String(count)],
      { encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(run.stderr);
    const { before, after } = JSON.parse(run.stdout.trim().split('\n').pop()!) as {
      before: number;
      after: number;
    };
    ratios.push(after / before);
    process.stdout.write(
      `round ${round + 1}: ${before.toFixed(0)} ns per await before, ${after.toFixed(0)} ns after\n`,
    );
  }
  ratios.sort((a, b) => a - b);
  process.stdout.write(
    `Node ${process.version}: median after/before ${ratios[Math.floor(ratios.length / 2)].toFixed(2)}\n`,
  );
}

const [flag, countArg] = process.argv.slice(2);
if (flag === '--child') {
  void child(Number(countArg));
} else {
  parent(Number(flag ?? 2_000_000), Number(countArg ?? 5));
}
