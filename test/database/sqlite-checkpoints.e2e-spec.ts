import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DatabaseConfig, loadConfig } from '../../src/config/app-config';
import { dataSourceOptions, sqliteConnection } from '../../src/database/data-source-options';
import {
  BACKSTOP_AUTOCHECKPOINT_PAGES,
  INLINE_AUTOCHECKPOINT_PAGES,
  SqliteCheckpointer,
} from '../../src/database/sqlite-checkpointer';
import { startTestApp } from '../helpers/test-app';
import { TEST_DIALECT } from '../helpers/test-database';
import { eventually } from '../helpers/webhook-receiver';

/** A main-connection pragma's value. */
function pragma(dataSource: DataSource, name: string): unknown {
  return sqliteConnection(dataSource)!.pragma(name, { simple: true });
}

/** Waits until `condition` holds (eventually's polling, on a synchronous condition). */
const until = (condition: () => boolean) =>
  eventually(
    () => Promise.resolve(condition()),
    (met) => met,
  );

/**
 * SQLite's checkpoints run in a thread of their own (SqliteCheckpointer), not in the commits of
 * the event loop. Always SQLite, whatever TEST_DATABASE: the checkpoints are the embedded
 * database's. The database is opened through the application's own data source options.
 */
describe('SQLite checkpoints in a thread of their own', () => {
  let root: string;
  let dataSource: DataSource;
  let database: DatabaseConfig;
  let checkpointer: SqliteCheckpointer | undefined;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'billing-checkpoints-'));
    database = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: `sqlite:${join(root, 'billing.sqlite')}`,
    }).database;
    dataSource = new DataSource({ ...dataSourceOptions(database), entities: [], migrations: [] });
    await dataSource.initialize();
    await dataSource.query('CREATE TABLE t (v text)');
  });
  afterEach(async () => {
    await checkpointer?.stop();
    checkpointer = undefined;
    await dataSource.destroy();
    rmSync(root, { recursive: true, force: true });
  });

  /** `count` commits of one row that fills a page of its own: at least `count` frames. */
  async function writePages(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      await dataSource.query('INSERT INTO t (v) VALUES (?)', [randomBytes(2048).toString('hex')]);
    }
  }

  it('is on for a database file, and the commits checkpoint only past the backstop', () => {
    expect(database.backgroundCheckpoints).toBe(true);
    expect(pragma(dataSource, 'wal_autocheckpoint')).toBe(INLINE_AUTOCHECKPOINT_PAGES);
    checkpointer = new SqliteCheckpointer(dataSource, database);
    checkpointer.start();
    expect(checkpointer.running).toBe(true);
    expect(pragma(dataSource, 'wal_autocheckpoint')).toBe(BACKSTOP_AUTOCHECKPOINT_PAGES);
  });

  it('copies the log into the database file from its thread', async () => {
    checkpointer = new SqliteCheckpointer(dataSource, database);
    checkpointer.start();
    const file = join(root, 'billing.sqlite');
    const before = statSync(file).size;
    // More than the 1,000 pages at which a commit would have checkpointed by SQLite's default,
    // less than the backstop: only the thread copies them into the database file.
    await writePages(1_500);
    await until(() => statSync(file).size >= before + 1_500 * 4096);
    const [{ n }] = await dataSource.query<{ n: number }[]>('SELECT COUNT(*) AS n FROM t');
    expect(n).toBe(1_500);
  });

  it('gives checkpoints back to the commits when stopped, or when its thread dies', async () => {
    checkpointer = new SqliteCheckpointer(dataSource, database);
    checkpointer.start();
    await checkpointer.stop();
    expect(checkpointer.running).toBe(false);
    expect(pragma(dataSource, 'wal_autocheckpoint')).toBe(INLINE_AUTOCHECKPOINT_PAGES);

    checkpointer.start();
    expect(pragma(dataSource, 'wal_autocheckpoint')).toBe(BACKSTOP_AUTOCHECKPOINT_PAGES);
    // The thread fails (an uncaught error in it, injected from outside, as Node reports one
    // before the thread exits): the service says so, once. A thread that merely exits with
    // code 0 is said at debug level, so that passing runs print no WARN that reads like a failure.
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const worker = (checkpointer as unknown as { worker: Worker }).worker;
      worker.emit('error', new Error('injected fault'));
      await worker.terminate();
      await until(() => !checkpointer!.running);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('checkpoint thread lost'));
    } finally {
      warn.mockRestore();
    }
    expect(pragma(dataSource, 'wal_autocheckpoint')).toBe(INLINE_AUTOCHECKPOINT_PAGES);
  });

  it('starts no thread for an in-memory database or where turned off (the command line)', () => {
    for (const config of [
      { ...database, backgroundCheckpoints: false },
      loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: 'sqlite::memory:' })
        .database,
    ]) {
      const idle = new SqliteCheckpointer(dataSource, config);
      idle.start();
      expect(idle.running).toBe(false);
    }
    expect(pragma(dataSource, 'wal_autocheckpoint')).toBe(INLINE_AUTOCHECKPOINT_PAGES);
  });
});

describe('the service and its checkpoint thread', () => {
  it(`runs one from start to shutdown on SQLite, none on PostgreSQL (${TEST_DIALECT})`, async () => {
    const app = await startTestApp();
    const checkpointer = app.app.get(SqliteCheckpointer);
    try {
      expect(checkpointer.running).toBe(TEST_DIALECT === 'sqlite');
    } finally {
      await app.close();
    }
    expect(checkpointer.running).toBe(false);
  });
});
