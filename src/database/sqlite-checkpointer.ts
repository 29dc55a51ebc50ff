import { Logger } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import { DataSource } from 'typeorm';
import { startWorker } from '../common/worker-file';
import type { DatabaseConfig } from '../config/app-config';
import { sqliteConnection } from './data-source-options';
import {
  CheckpointPass,
  CheckpointerSettings,
  FromCheckpointer,
  ToCheckpointer,
} from './sqlite-checkpoints';

/** SQLite's own default: the log's size, in pages, at which a commit checkpoints. */
export const INLINE_AUTOCHECKPOINT_PAGES = 1_000;
/**
 * While the thread runs, a commit checkpoints only past this many pages (40 MB of 4 KB pages):
 * a backstop should the thread fall behind, or never find a moment when every frame is copied
 * (the log starts over only then).
 */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * SQLite's checkpoints, off the event loop. In WAL mode a commit appends the pages it changed to
 * the write-ahead log, and by default the commit that takes the log past 1,000 pages then copies
 * the log back into the database file and syncs it, synchronously, in the main thread: under a
 * steady write load that was one commit in thirty or so taking 5-20 ms, during which no request
 * was served (docs/benchmarks.md, "SQLite checkpoints").
 *
 * With a database file (not `:memory:`), `start` runs them in a thread of their own
 * (sqlite-checkpoint-worker.ts, a connection of its own: passive checkpoints, every 20 ms while
 * writes go on, at most every second when idle), and lets the main connection checkpoint only
 * past BACKSTOP_AUTOCHECKPOINT_PAGES. Should the thread fail or die, the main connection goes back
 * to SQLite's default. The command line (one write and out) leaves the default alone
 * (`backgroundCheckpoints` is false there).
 */
export class SqliteCheckpointer {
  private readonly logger = new Logger('SqliteCheckpointer');
  private worker?: Worker;
  private readonly listeners: ((pass: CheckpointPass) => void)[] = [];

  constructor(
    private readonly dataSource: DataSource,
    private readonly database: DatabaseConfig,
  ) {}

  /** Whether the checkpoint thread is running. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Called with each pass of the thread that found frames to copy or a log that changed. */
  onPass(listener: (pass: CheckpointPass) => void): void {
    this.listeners.push(listener);
  }

  start(): void {
    const { kind, sqlitePath, backgroundCheckpoints } = this.database;
    // backgroundCheckpoints is set for a database file only (never for ':memory:').
    if (kind !== 'sqlite' || !backgroundCheckpoints || !sqlitePath || this.worker) return;
    const settings: CheckpointerSettings = { path: sqlitePath };
    const worker = startWorker(__dirname, 'sqlite-checkpoint-worker', { workerData: settings });
    // Stopped with the database module; it never holds the process open by itself.
    worker.unref();
    this.worker = worker;
    worker.on('message', (message: FromCheckpointer) => {
      if (message.type === 'pass') {
        for (const listener of this.listeners) listener(message.pass);
        return;
      }
      this.logger.warn(`background checkpoint failed: ${message.message}`);
    });
    // Only a thread still current is lost: `stop` lets go of it before asking it to end.
    // A thread that ended cleanly (exit code 0: its connection closed with the database, as at the
    // end of a test) is no failure: said at debug level, so that a passing run prints no WARN
    // that reads like one. An error or another exit code is a warning.
    const gone = (reason: string, clean = false) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const line = `checkpoint thread ${clean ? 'ended' : 'lost'} (${reason}): commits checkpoint again`;
      if (clean) this.logger.debug(line);
      else this.logger.warn(line);
      this.autocheckpoint(INLINE_AUTOCHECKPOINT_PAGES);
    };
    worker.on('error', (err: Error) => gone(err.message));
    worker.on('exit', (code) => gone(`exit code ${code}`, code === 0));
    this.autocheckpoint(BACKSTOP_AUTOCHECKPOINT_PAGES);
  }

  /** Stops the thread (its connection closes) and gives checkpoints back to the commits. */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    // Held open until the thread is gone: with nothing else left (a start-up that failed to
    // listen), an unreferenced thread let the process end here, before its exit code was set.
    worker.ref();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const message: ToCheckpointer = { type: 'stop' };
    worker.postMessage(message);
    await exited;
    this.autocheckpoint(INLINE_AUTOCHECKPOINT_PAGES);
  }

  /** Sets the main connection's automatic checkpoint, while it is open. */
  private autocheckpoint(pages: number): void {
    sqliteConnection(this.dataSource)?.pragma(`wal_autocheckpoint = ${pages}`);
  }
}
