import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, IsNull, Not } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Database } from '../database/database';
import { Tenant } from '../events/caller';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';

/** The queries of webhook_endpoints; every method takes the caller's (transaction's) manager. */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly db: Database) {}

  private get noKeyUpdate(): { mode: 'for_no_key_update' } | undefined {
    return this.db.isPostgres ? { mode: 'for_no_key_update' } : undefined;
  }

  async insert(m: EntityManager, endpoint: WebhookEndpoint): Promise<void> {
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

  /** The enabled endpoints of an organization and mode: who may receive its new event. */
  enabledFor(m: EntityManager, tenant: Tenant): Promise<WebhookEndpoint[]> {
    return m.find(WebhookEndpoint, {
      select: { id: true, enabledEvents: true, status: true },
      where: {
        organizationId: tenant.organizationId,
        livemode: tenant.livemode,
        deletedAt: IsNull(),
      },
    });
  }

  async update(
    m: EntityManager,
    id: string,
    changes: QueryDeepPartialEntity<WebhookEndpoint>,
  ): Promise<void> {
    await m.update(WebhookEndpoint, { id }, changes);
  }
}
