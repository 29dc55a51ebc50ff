/**
 * The SQLite checkpoint thread (a worker thread of the service, started by SqliteCheckpointer):
 * on a connection of its own to the database file, it copies what the write-ahead log holds back
 * into the database file (`PRAGMA wal_checkpoint(PASSIVE)`), so that the main thread's commits
 * never do it. A passive checkpoint takes no lock that a writer or a reader waits for: it copies
 * what no open read still needs, and leaves the rest to the next pass.
 */
import Sqlite from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import {
  CHECKPOINT_MAX_DELAY_MS,
  CHECKPOINT_MIN_DELAY_MS,
  CheckpointPass,
  CheckpointerSettings,
  FromCheckpointer,
  ToCheckpointer,
  logChanged,
  nextCheckpointDelay,
} from './sqlite-checkpoints';

function run(): void {
  const port = parentPort;
  if (!port) throw new Error('sqlite-checkpoint-worker runs as a worker thread');
  const { path } = workerData as CheckpointerSettings;
  const db = new Sqlite(path, { fileMustExist: true });
  let delay = CHECKPOINT_MIN_DELAY_MS;
  let last: CheckpointPass | undefined;
  let timer: NodeJS.Timeout | undefined;

  const pass = () => {
    try {
      const [result] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointPass[];
      delay = nextCheckpointDelay(delay, last, result);
      if (logChanged(last, result)) {
        const message: FromCheckpointer = { type: 'pass', pass: result };
        port.postMessage(message);
      }
      last = result;
    } catch (err) {
      // Reported, and tried again at the longest delay: the main connection's own checkpoints
      // (its backstop) still bound the log meanwhile.
      const message: FromCheckpointer = { type: 'failed', message: (err as Error).message };
      port.postMessage(message);
      delay = CHECKPOINT_MAX_DELAY_MS;
    }
    timer = setTimeout(pass, delay);
  };

  port.on('message', (message: ToCheckpointer) => {
    if (message.type !== 'stop') return;
    clearTimeout(timer);
    db.close();
    port.close();
  });
  pass();
}

run();
