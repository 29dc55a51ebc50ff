import { Logger } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import { DataSource } from 'typeorm';
import type { DatabaseConfig } from '../config/app-config';
import { sqliteConnection } from './data-source-options';

/** SQLite's own default: the log's size, in pages, at which a commit checkpoints. */
export const INLINE_AUTOCHECKPOINT_PAGES = 1_000;
/**
 * While the thread runs, a commit checkpoints only past this many pages (40 MB of 4 KB pages):
 * a backstop should the thread fall behind, or never find a moment when every frame is copied.
 */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * The checkpoint thread, on a connection of its own to the file: a passive checkpoint (it takes
 * no lock a writer or a reader waits for) every 20 ms while the log changes, the delay doubling
 * up to a second while it does not. A failed pass is reported and tried again a second later.
 */
const THREAD = `
const Sqlite = require(${JSON.stringify(require.resolve('better-sqlite3'))});
const { parentPort, workerData } = require('node:worker_threads');
const db = new Sqlite(workerData, { fileMustExist: true });
let delay = 20, last = '', timer;
const pass = () => {
  try {
    const [{ log, checkpointed }] = db.pragma('wal_checkpoint(PASSIVE)');
    delay = log + '/' + checkpointed !== last ? 20 : Math.min(1000, delay * 2);
    last = log + '/' + checkpointed;
  } catch (err) {
    parentPort.postMessage(err.message);
    delay = 1000;
  }
  timer = setTimeout(pass, delay);
};
parentPort.on('message', () => { clearTimeout(timer); db.close(); parentPort.close(); });
pass();
`;

/**
 * SQLite's checkpoints, off the event loop. In WAL mode the commit that takes the log past
 * 1,000 pages copies the log back into the database file and syncs it, synchronously, in the
 * main thread: under a steady write load one commit in thirty or so took 5-20 ms, during which
 * no request was served. With the checkpoints in a thread of their own, the slowest 1% of commits
 * under the create load went from 7.6-13.6 ms to 0.6-1.0 ms (docs/operations.md, "SQLite").
 *
 * With a database file (not `:memory:`), `start` runs the thread and lets the main connection
 * checkpoint only past BACKSTOP_AUTOCHECKPOINT_PAGES; should the thread die, the main connection
 * goes back to SQLite's default. The command line (one write and out) starts no thread
 * (`backgroundCheckpoints` is false there).
 */
export class SqliteCheckpointer {
  private readonly logger = new Logger('SqliteCheckpointer');
  private worker?: Worker;

  constructor(
    private readonly dataSource: DataSource,
    private readonly database: DatabaseConfig,
  ) {}

  get running(): boolean {
    return this.worker !== undefined;
  }

  start(): void {
    const { kind, sqlitePath, backgroundCheckpoints } = this.database;
    if (kind !== 'sqlite' || !backgroundCheckpoints || !sqlitePath || this.worker) return;
    const worker = new Worker(THREAD, { eval: true, workerData: sqlitePath });
    worker.unref(); // stopped with the database module; never holds the process open
    this.worker = worker;
    worker.on('message', (message: string) =>
      this.logger.warn(`background checkpoint failed: ${message}`),
    );
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
    // Held open until the thread is gone, so the process cannot end before its exit code is set.
    worker.ref();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    await exited;
    this.autocheckpoint(INLINE_AUTOCHECKPOINT_PAGES);
  }

  /** Sets the main connection's automatic checkpoint, while it is open. */
  private autocheckpoint(pages: number): void {
    sqliteConnection(this.dataSource)?.pragma(`wal_autocheckpoint = ${pages}`);
  }
}
