import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, IsNull } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Database } from '../database/database.service';
import { Tenant } from '../events/caller';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';

/** The queries of webhook_endpoints; every method takes the caller's (transaction's) manager. */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly db: Database) {}

  async insert(m: EntityManager, endpoint: WebhookEndpoint): Promise<void> {
    await m.insert(WebhookEndpoint, endpoint);
  }

  /** A live endpoint of this organization and mode; locked for update when asked (PostgreSQL). */
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
      lock: forUpdate ? this.db.rowLock : undefined,
    });
  }

  /** Any endpoint by id, deleted ones too (the dispatcher checks their state itself). */
  findById(m: EntityManager, id: string, forUpdate = false): Promise<WebhookEndpoint | null> {
    return m.findOne(WebhookEndpoint, {
      where: { id },
      lock: forUpdate ? this.db.rowLock : undefined,
    });
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
