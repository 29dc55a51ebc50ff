import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type Sqlite from 'better-sqlite3';
import { DataSource, DataSourceOptions } from 'typeorm';
import { ensurePrivateDirectory, ensurePrivateFile } from '../common/private-files';
import { DEFAULT_POOL_SIZE, DatabaseConfig } from '../config/app-config';
import { useDialect } from './column-types';
import { postgresMigrations, sqliteMigrations } from './migrations';

/**
 * The better-sqlite3 connection under a SQLite data source (for its pragmas), while it is open;
 * undefined once it is closed or on PostgreSQL.
 */
export function sqliteConnection(dataSource: DataSource): Sqlite.Database | undefined {
  if (!dataSource.isInitialized) return undefined;
  return (dataSource.driver as unknown as { databaseConnection?: Sqlite.Database })
    .databaseConnection;
}

/**
 * The TypeORM options for a configured database: migrations per dialect, never synchronize, and
 * the entities' dialect-dependent column types set for it.
 * SQLite runs in WAL mode with foreign keys on and a short busy timeout; PostgreSQL through a pool
 * (`pool`: DATABASE_POOL_SIZE connections named `billing-api` unless told otherwise).
 */
export function dataSourceOptions(
  database: DatabaseConfig,
  pool: { size: number; name: string } = {
    size: database.poolSize ?? DEFAULT_POOL_SIZE,
    name: 'billing-api',
  },
): DataSourceOptions {
  useDialect(database.kind);
  const common = {
    // Every entity file of every module; the Nest app also registers them through forFeature.
    entities: [join(__dirname, '..', '**', '*.entity.{ts,js}')],
    synchronize: false,
    migrationsRun: false,
    migrationsTableName: 'typeorm_migrations',
    logging: false,
  };
  if (database.kind === 'postgres') {
    return {
      ...common,
      type: 'postgres',
      url: database.url,
      migrations: postgresMigrations,
      migrationsTransactionMode: 'each',
      extra: {
        max: pool.size,
        // How pg_stat_activity names the pool's connections.
        application_name: pool.name,
        connectionTimeoutMillis: 3000,
        idleTimeoutMillis: 30000,
        // A statement that hangs (a lock, a stopped server) fails instead of holding a request:
        // the server cancels it after 4 s; the client gives up after 5 s when the server does
        // not answer at all (a network that drops packets), and the request answers 503.
        statement_timeout: 4000,
        query_timeout: 5000,
      },
    };
  }
  const path = database.sqlitePath ?? ':memory:';
  if (path !== ':memory:') makePrivate(path);
  return {
    ...common,
    type: 'better-sqlite3',
    database: path,
    migrations: sqliteMigrations,
    migrationsTransactionMode: 'each',
    enableWAL: path !== ':memory:',
    // A few milliseconds only: better-sqlite3 waits for a lock synchronously, blocking the event
    // loop. A write waits for another connection's lock in Database.transaction instead, with
    // asynchronous pauses.
    timeout: 5,
    prepareDatabase: (db: { pragma: (sql: string) => unknown }) => {
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5');
      db.pragma('synchronous = NORMAL');
    },
  };
}

/**
 * A SQLite database holds every organization's data: its folder is created 0700 and its files
 * 0600 before SQLite opens them, whatever the umask (SQLite gives its companion files the main
 * file's mode). Companions left wider by an older version are narrowed too.
 */
function makePrivate(path: string): void {
  const file = resolve(path);
  ensurePrivateDirectory(dirname(file));
  ensurePrivateFile(file);
  // The write-ahead log, its index, the rollback journal.
  for (const suffix of ['-wal', '-shm', '-journal']) {
    if (existsSync(file + suffix)) ensurePrivateFile(file + suffix);
  }
}
