import { Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import type { DatabaseKind } from '../config/app-config';
import { sqliteConnection } from './data-source-options';

/**
 * What a subscriber hears: the payload of one change announced on its channel, or null for
 * "anything may have changed" (SQLite says no more; on PostgreSQL, after the listening
 * connection was down and changes may have gone unheard).
 */
export type ChangeHandler = (payload: string | null) => void;

/** The listening connection proves itself this often (a query answered on it)... */
const HEARTBEAT_MS = 250;
/** ...and counts as down when its last proof is older than this, or a proof takes this long. */
const TRUSTED_FOR_MS = 750;
/** A listening connection that has not answered for this long is replaced. */
const GIVE_UP_AFTER_MS = 5000;
/** How the listening connection shows in pg_stat_activity. */
export const CHANGE_FEED_APPLICATION_NAME = 'billing-api change feed';
/** Pauses between attempts to open the listening connection again. */
const RECONNECT_MS = [100, 250, 500, 1000, 2000];

/**
 * Tells this process, promptly, that another connection (another instance of the service, the
 * command line) committed a change, so that in-memory caches of database state can drop what
 * went stale. Writers announce a change inside their transaction (`announce`); it is heard when
 * and only when the transaction commits.
 *
 * - SQLite: `PRAGMA data_version` changes when another connection commits to the file. It is
 *   read without I/O at each `catchUp()` (a cache calls it before it answers), so no commit of
 *   another process goes unnoticed by the next lookup. A change says nothing about what
 *   changed: subscribers hear null.
 * - PostgreSQL: LISTEN/NOTIFY on a connection of its own (announce is `pg_notify` in the
 *   writer's transaction). That connection answers a heartbeat every 250 ms; when it has not
 *   for 750 ms, or it closed, `trusted` is false, so a cache keeps entries only briefly (a
 *   notification may be lost), and it reconnects. On reconnecting, subscribers hear null.
 *
 * Changes made on this process's own connection are not reported back on SQLite: the writer
 * updates its own caches.
 */
export class DatabaseChangeFeed implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('DatabaseChangeFeed');
  private readonly handlers = new Map<string, ChangeHandler[]>();
  private sqliteVersion?: { get(): unknown };
  private lastVersion: unknown;
  /** The listening connection, from the moment it is opened until it is lost. */
  private client?: Client;
  /** Whether `client` is connected and listening. */
  private listening = false;
  private confirmedAt = 0;
  private heartbeat?: NodeJS.Timeout;
  private reconnect?: NodeJS.Timeout;
  private reconnectAttempt = 0;
  private stopped = false;

  /** True on PostgreSQL: the configured dialect (AppConfig.database.kind). */
  readonly isPostgres: boolean;

  constructor(
    private readonly dataSource: DataSource,
    dialect: DatabaseKind,
  ) {
    this.isPostgres = dialect === 'postgres';
  }

  /**
   * Whether every change committed more than a moment ago has been heard. Always true on
   * SQLite (data_version is exact); on PostgreSQL while the listening connection is up and has
   * answered within the last 750 ms.
   */
  get trusted(): boolean {
    if (!this.isPostgres) return true;
    return this.listening && Date.now() - this.confirmedAt < TRUSTED_FOR_MS;
  }

  /** Calls `handler` for each change announced on `channel` from now on. */
  subscribe(channel: string, handler: ChangeHandler): void {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`bad channel name: ${channel}`);
    const list = this.handlers.get(channel) ?? [];
    list.push(handler);
    this.handlers.set(channel, list);
    const client = this.client;
    if (client && this.listening) {
      client.query(`LISTEN ${channel}`).catch((err: unknown) => this.lost(err, client));
    }
  }

  /** Inside a transaction: announces a change, heard by every instance once it commits. */
  async announce(manager: EntityManager, channel: string, payload: string): Promise<void> {
    if (this.isPostgres) await manager.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  /**
   * SQLite: reports a commit of another connection since the last call, synchronously and
   * without I/O (a read of the WAL index in shared memory). PostgreSQL: nothing to do, changes
   * are pushed.
   */
  catchUp(): void {
    if (this.isPostgres) return;
    if (!this.sqliteVersion) {
      const connection = sqliteConnection(this.dataSource);
      if (!connection) return;
      this.sqliteVersion = connection.prepare('PRAGMA data_version').pluck();
      this.lastVersion = this.sqliteVersion.get();
      return;
    }
    const version = this.sqliteVersion.get();
    if (version === this.lastVersion) return;
    this.lastVersion = version;
    this.everything();
  }

  async onModuleInit(): Promise<void> {
    if (this.isPostgres) await this.connect();
    else this.catchUp();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnect);
    clearInterval(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }

  /** Every subscriber of every channel hears "anything may have changed". */
  private everything(): void {
    for (const list of this.handlers.values()) for (const handler of list) handler(null);
  }

  private async connect(): Promise<void> {
    const url = (this.dataSource.options as { url?: string }).url;
    const client = new Client({
      connectionString: url,
      connectionTimeoutMillis: 3000,
      application_name: CHANGE_FEED_APPLICATION_NAME,
    });
    this.client = client;
    client.on('error', (err) => this.lost(err, client));
    client.on('end', () => this.lost(undefined, client));
    client.on('notification', (message) => {
      for (const handler of this.handlers.get(message.channel) ?? []) {
        handler(message.payload ?? null);
      }
    });
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      this.lost(err, client);
      return;
    }
    if (this.client !== client) return; // lost meanwhile, or stopped
    this.listening = true;
    this.confirmedAt = Date.now();
    this.reconnectAttempt = 0;
    // Whatever was announced while no connection listened went unheard.
    this.everything();
    this.heartbeat = setInterval(() => this.beat(client), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /**
   * A query answered on the listening connection proves that every notification committed
   * before it was sent has arrived (PostgreSQL delivers them before the answer).
   */
  private beat(client: Client): void {
    const sentAt = Date.now();
    if (sentAt - this.confirmedAt > GIVE_UP_AFTER_MS) {
      this.lost(new Error('the listening connection stopped answering'), client);
      return;
    }
    client.query('SELECT 1').then(
      () => {
        if (this.client === client) this.confirmedAt = Math.max(this.confirmedAt, sentAt);
      },
      (err: unknown) => this.lost(err, client),
    );
  }

  /** The listening connection `client` failed: drop it and open another after a pause. */
  private lost(err: unknown, client: Client): void {
    if (this.client !== client) return; // already replaced, or stopped
    this.client = undefined;
    this.listening = false;
    clearInterval(this.heartbeat);
    void client.end().catch(() => undefined);
    if (this.stopped) return;
    const reason = err instanceof Error ? err.message : 'connection closed';
    this.logger.warn(
      `database change notifications interrupted (${reason}); caches keep entries only briefly until they resume`,
    );
    const pause = RECONNECT_MS[Math.min(this.reconnectAttempt++, RECONNECT_MS.length - 1)];
    this.reconnect = setTimeout(() => void this.connect(), pause);
    this.reconnect.unref();
  }
}
