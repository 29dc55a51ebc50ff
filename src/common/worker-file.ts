import { join } from 'node:path';
import { Worker, WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread on the module `name` (no extension) in `dir`, the caller's __dirname.
 * Built as JavaScript (dist/) it runs the compiled file; from TypeScript sources (the tests,
 * ts-node) it loads the source through ts-node, as the rest of the process does.
 */
export function startWorker(dir: string, name: string, options: WorkerOptions = {}): Worker {
  if (__filename.endsWith('.ts')) {
    const file = JSON.stringify(join(dir, `${name}.ts`));
    return new Worker(`require('ts-node').register({ transpileOnly: true }); require(${file});`, {
      ...options,
      eval: true,
    });
  }
  return new Worker(join(dir, `${name}.js`), options);
}
