import { AsyncLocalStorage } from 'node:async_hooks';
import { EntityManager } from 'typeorm';

/**
 * Writes that must commit together with the first transaction a request runs: the stored
 * response of the request's Idempotency-Key, so that the resource and the record of its answer
 * land in one commit (a process killed between two commits would leave a resource whose retry
 * runs again). `run` gets the transaction's manager and what the request's work returned.
 */
export interface CommitHook {
  run(manager: EntityManager, result: unknown): Promise<void>;
}

interface Armed {
  hook: CommitHook;
  done: boolean;
}

const armed = new AsyncLocalStorage<Armed>();

/** Runs `fn` with `hook` armed for the first transaction that `fn` (or what it starts) commits. */
export function withCommitHook<T>(hook: CommitHook, fn: () => T): T {
  return armed.run({ hook, done: false }, fn);
}

/** The hook armed for the current request, unless a transaction already took it. */
export function takeCommitHook(): { hook: CommitHook; settle(): void } | undefined {
  const state = armed.getStore();
  if (!state || state.done) return undefined;
  return { hook: state.hook, settle: () => (state.done = true) };
}

/** Disarms the current request's hook (its response is being stored by other means). */
export function disarmCommitHook(): void {
  const state = armed.getStore();
  if (state) state.done = true;
}
