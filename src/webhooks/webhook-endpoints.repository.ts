import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, IsNull } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Database, Read } from '../database/database';
import { EntityTable, perCount, placeholders } from '../database/entity-table';
import { Tenant } from '../events/caller';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';

/** What queueing an event needs of an endpoint that may receive it. */
export type ListeningEndpoint = Pick<WebhookEndpoint, 'id' | 'enabledEvents'>;

/** The queries of webhook_endpoints; every method takes the caller's (transaction's) manager. */
@Injectable()
export class WebhookEndpointsRepository {
  private table?: EntityTable<WebhookEndpoint>;
  private byIdsSql?: { plain: (n: number) => string; forUpdate: (n: number) => string };
  /**
   * What `enabledFor` read in each open transaction (keyed by its entity manager), per
   * organization and mode: a write that records several events asks once. Dropped with the
   * transaction's manager, and forgotten when the transaction writes an endpoint.
   */
  private readonly listening = new WeakMap<
    EntityManager,
    Map<string, Promise<ListeningEndpoint[]>>
  >();

  constructor(private readonly db: Database) {}

  private get noKeyUpdate(): { mode: 'for_no_key_update' } | undefined {
    return this.db.isPostgres ? { mode: 'for_no_key_update' } : undefined;
  }

  async insert(m: EntityManager, endpoint: WebhookEndpoint): Promise<void> {
    this.listening.delete(m);
    await m.insert(WebhookEndpoint, endpoint);
  }

  /**
   * A live endpoint of this organization and mode; locked (FOR NO KEY UPDATE on PostgreSQL, see
   * findByIds) for a read-modify-write when asked.
   */
  findLive(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    forUpdate = false,
  ): Promise<WebhookEndpoint | null> {
    return m.findOne(WebhookEndpoint, {
      where: {
        id,
        organizationId: tenant.organizationId,
        livemode: tenant.livemode,
        deletedAt: IsNull(),
      },
      lock: forUpdate ? this.noKeyUpdate : undefined,
    });
  }

  /**
   * These endpoints by id, deleted ones too (the dispatcher checks their state itself). `lock`
   * takes FOR NO KEY UPDATE on PostgreSQL, in the order of the ids (two instances recording at
   * once never deadlock): it queues behind other writers of the rows but not behind the
   * key-share locks that inserting their deliveries and attempts takes.
   */
  async findByIds(m: EntityManager, ids: string[], lock = false): Promise<WebhookEndpoint[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.rows(
      m,
      (lock ? this.byIds.forUpdate : this.byIds.plain)(ids.length),
      ids,
    );
    return rows.map((row) => this.endpointsTable.fromRow(row));
  }

  /** The start of an endpoint's failing streak, or null when a success ended it. */
  async setFailingSince(m: EntityManager, id: string, since: Date | null): Promise<void> {
    await this.db.execute(m, SET_FAILING_SQL, [
      since === null ? null : this.endpointsTable.param('failingSince', since),
      id,
    ]);
  }

  private get endpointsTable(): EntityTable<WebhookEndpoint> {
    return (this.table ??= this.db.table(WebhookEndpoint));
  }

  private get byIds(): { plain: (n: number) => string; forUpdate: (n: number) => string } {
    if (!this.byIdsSql) {
      const select = (n: number) =>
        `SELECT ${this.endpointsTable.columnList()} FROM "webhook_endpoints" WHERE "id" IN (${placeholders(n)}) ORDER BY "id"`;
      const lock = this.db.isPostgres ? ' FOR NO KEY UPDATE' : '';
      this.byIdsSql = {
        plain: perCount(select),
        forUpdate: perCount((n) => select(n) + lock),
      };
    }
    return this.byIdsSql;
  }

  page(
    m: EntityManager,
    tenant: Tenant,
    limit: number,
    offset: number,
  ): Promise<[WebhookEndpoint[], number]> {
    const where: FindOptionsWhere<WebhookEndpoint> = {
      organizationId: tenant.organizationId,
      livemode: tenant.livemode,
      deletedAt: IsNull(),
    };
    return m.findAndCount(WebhookEndpoint, {
      where,
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
      skip: offset,
    });
  }

  /**
   * The enabled live endpoints of an organization and mode: who may receive its new event. On
   * the path of every write that records an event, so constant SQL (EntityTable), read once per
   * transaction and organization and mode (see `listening`).
   */
  enabledFor(m: EntityManager, tenant: Tenant): Promise<ListeningEndpoint[]> {
    // Only a transaction's own manager is a key: a read's manager is shared and lives on.
    if (!m.queryRunner) return this.readEnabled(m, tenant);
    const read = this.listeningIn(m);
    const key = listeningKey(tenant);
    let endpoints = read.get(key);
    if (!endpoints) read.set(key, (endpoints = this.readEnabled(m, tenant)));
    return endpoints;
  }

  /** The read of `enabledFor`, to run along another statement (see `rememberEnabled`). */
  enabledRead(tenant: Tenant): Read {
    return { text: ENABLED_SQL, params: [tenant.organizationId, tenant.livemode] };
  }

  /**
   * What `enabledRead(tenant)` returned in transaction `m`, read along another statement (the
   * events' INSERT): `enabledFor` answers it in that transaction without reading again.
   */
  rememberEnabled(m: EntityManager, tenant: Tenant, rows: Record<string, unknown>[]): void {
    if (!m.queryRunner) return;
    this.listeningIn(m).set(listeningKey(tenant), Promise.resolve(this.toListening(rows)));
  }

  private listeningIn(m: EntityManager): Map<string, Promise<ListeningEndpoint[]>> {
    let read = this.listening.get(m);
    if (!read) this.listening.set(m, (read = new Map<string, Promise<ListeningEndpoint[]>>()));
    return read;
  }

  private async readEnabled(m: EntityManager, tenant: Tenant): Promise<ListeningEndpoint[]> {
    const { text, params } = this.enabledRead(tenant);
    return this.toListening(await this.db.rows(m, text, params));
  }

  private toListening(rows: Record<string, unknown>[]): ListeningEndpoint[] {
    const endpoints = this.endpointsTable;
    return rows.map((row) => {
      const { id, enabledEvents } = endpoints.fromRow(row);
      return { id, enabledEvents };
    });
  }

  async update(
    m: EntityManager,
    id: string,
    changes: QueryDeepPartialEntity<WebhookEndpoint>,
  ): Promise<void> {
    this.listening.delete(m);
    await m.update(WebhookEndpoint, { id }, changes);
  }
}

/** The key of an organization and mode in `listening`. */
function listeningKey(tenant: Tenant): string {
  return `${tenant.organizationId}:${tenant.livemode}`;
}

/** The enabled live endpoints of an organization (?) and mode (?), by their partial index. */
const ENABLED_SQL =
  'SELECT "id", "enabled_events" FROM "webhook_endpoints" ' +
  `WHERE "organization_id" = ? AND "livemode" = ? AND "deleted_at" IS NULL AND "status" = 'enabled'`;

/** The dispatcher's write of an endpoint's failing streak, under the row's lock (constant SQL). */
const SET_FAILING_SQL = 'UPDATE "webhook_endpoints" SET "failing_since" = ? WHERE "id" = ?';
