import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, IsNull, Not } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Database } from '../database/database';
import { EntityTable } from '../database/entity-table';
import { Tenant } from '../events/caller';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';

/** What queueing an event needs of an endpoint that may receive it. */
export type ListeningEndpoint = Pick<WebhookEndpoint, 'id' | 'enabledEvents'>;

/** The queries of webhook_endpoints; every method takes the caller's (transaction's) manager. */
@Injectable()
export class WebhookEndpointsRepository {
  private table?: EntityTable<WebhookEndpoint>;
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
   * findById) for a read-modify-write when asked.
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
   * Any endpoint by id, deleted ones too (the dispatcher checks their state itself). `lock` takes
   * FOR NO KEY UPDATE on PostgreSQL: it queues behind other writers of the row but not behind
   * the key-share locks that inserting its deliveries and attempts takes, so recording attempts
   * in parallel never deadlocks on it.
   */
  findById(m: EntityManager, id: string, lock = false): Promise<WebhookEndpoint | null> {
    return m.findOne(WebhookEndpoint, {
      where: { id },
      lock: lock ? this.noKeyUpdate : undefined,
    });
  }

  /** After a success: the failing streak ends (a write only when there was one). */
  async clearFailing(m: EntityManager, id: string): Promise<void> {
    await m.update(WebhookEndpoint, { id, failingSince: Not(IsNull()) }, { failingSince: null });
  }

  /** After a failure: the failing streak starts now unless it already had. */
  async markFailing(m: EntityManager, id: string, now: Date): Promise<void> {
    await m.update(WebhookEndpoint, { id, failingSince: IsNull() }, { failingSince: now });
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
    let read = this.listening.get(m);
    if (!read) this.listening.set(m, (read = new Map<string, Promise<ListeningEndpoint[]>>()));
    const key = `${tenant.organizationId}:${tenant.livemode}`;
    let endpoints = read.get(key);
    if (!endpoints) read.set(key, (endpoints = this.readEnabled(m, tenant)));
    return endpoints;
  }

  private async readEnabled(m: EntityManager, tenant: Tenant): Promise<ListeningEndpoint[]> {
    const endpoints = (this.table ??= this.db.table(WebhookEndpoint));
    const rows = await this.db.rows(m, ENABLED_SQL, [tenant.organizationId, tenant.livemode]);
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

/** The enabled live endpoints of an organization (?) and mode (?), by their partial index. */
const ENABLED_SQL =
  'SELECT "id", "enabled_events" FROM "webhook_endpoints" ' +
  `WHERE "organization_id" = ? AND "livemode" = ? AND "deleted_at" IS NULL AND "status" = 'enabled'`;
