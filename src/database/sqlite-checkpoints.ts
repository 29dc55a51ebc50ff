/**
 * What the SQLite checkpoint thread (sqlite-checkpoint-worker.ts) and its owner in the main
 * thread (SqliteCheckpointer) share: the pace of its passes and the messages between them.
 */

/** The soonest next pass, after one that found work... */
export const CHECKPOINT_MIN_DELAY_MS = 20;
/** ...and the latest, after passes that found none (each such pass doubles the delay). */
export const CHECKPOINT_MAX_DELAY_MS = 1_000;

/** What `PRAGMA wal_checkpoint(PASSIVE)` answers: frames in the WAL, and how many are copied back. */
export interface CheckpointPass {
  /** 1 when the checkpoint could not run at all (another one held it). */
  busy: number;
  /** Frames in the write-ahead log (-1 when the database is not in WAL mode). */
  log: number;
  /** Of those, the frames copied into the database file (by this pass or an earlier one). */
  checkpointed: number;
}

/** Whether the log changed since the pass before (the first pass counts as a change). */
export function logChanged(before: CheckpointPass | undefined, after: CheckpointPass): boolean {
  return (
    before === undefined || before.log !== after.log || before.checkpointed !== after.checkpointed
  );
}

/**
 * The delay before the next pass: the shortest while the log changes between passes (writes go
 * on), doubling up to the longest while it does not (an idle service wakes the thread once a
 * second).
 */
export function nextCheckpointDelay(
  delayMs: number,
  before: CheckpointPass | undefined,
  after: CheckpointPass,
): number {
  if (logChanged(before, after)) return CHECKPOINT_MIN_DELAY_MS;
  return Math.min(CHECKPOINT_MAX_DELAY_MS, delayMs * 2);
}

/** What the thread is started with. */
export interface CheckpointerSettings {
  /** The database file. */
  path: string;
}

/** What the main thread tells the checkpoint thread. */
export type ToCheckpointer = { type: 'stop' };

/** What the checkpoint thread tells the main thread. */
export type FromCheckpointer =
  { type: 'pass'; pass: CheckpointPass } | { type: 'failed'; message: string };
