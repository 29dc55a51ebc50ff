import { Injectable } from '@nestjs/common';
import { EntityManager, In, IsNull, MoreThan, Not, Or } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Organization } from '../auth/entities/organization.entity';
import { Tenant, ownedBy } from '../common/tenant';
import { Database } from '../database/database';
import { claimLock } from '../database/lease-poller';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';

/** The queries of webhook_endpoints; every method takes the caller's (transaction's) manager. */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly db: Database) {}

  async insert(m: EntityManager, endpoint: WebhookEndpoint): Promise<void> {
    await m.insert(WebhookEndpoint, endpoint);
  }

  /** A live endpoint of this organization and mode, locked for a read-modify-write when asked. */
  findLive(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    lock = false,
  ): Promise<WebhookEndpoint | null> {
    return m.findOne(WebhookEndpoint, {
      where: { id, ...ownedBy(tenant), deletedAt: IsNull() },
      lock: lock ? this.db.rowLock : undefined,
    });
  }

  /** Locks the tenant's organization row: writes that check a per-organization limit queue. */
  async lockOrganization(m: EntityManager, tenant: Tenant): Promise<void> {
    await m.findOne(Organization, {
      select: { id: true },
      where: { id: tenant.organizationId },
      lock: this.db.rowLock,
    });
  }

  /** How many live endpoints (enabled and disabled) this organization has in this mode. */
  countLive(m: EntityManager, tenant: Tenant): Promise<number> {
    return m.countBy(WebhookEndpoint, { ...ownedBy(tenant), deletedAt: IsNull() });
  }

  page(
    m: EntityManager,
    tenant: Tenant,
    limit: number,
    offset: number,
  ): Promise<[WebhookEndpoint[], number]> {
    return m.findAndCount(WebhookEndpoint, {
      where: { ...ownedBy(tenant), deletedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
      skip: offset,
    });
  }

  /** The enabled live endpoints of an organization and mode: who may receive its events. */
  enabledFor(
    m: EntityManager,
    tenant: Tenant,
  ): Promise<Pick<WebhookEndpoint, 'id' | 'enabledEvents' | 'createdAt'>[]> {
    return m.find(WebhookEndpoint, {
      select: { id: true, enabledEvents: true, createdAt: true },
      where: { ...ownedBy(tenant), deletedAt: IsNull(), status: 'enabled' },
    });
  }

  async update(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    changes: QueryDeepPartialEntity<WebhookEndpoint>,
  ): Promise<void> {
    await m.update(WebhookEndpoint, { id, ...ownedBy(tenant) }, changes);
  }

  /** An endpoint by id, deleted or not (the delivery job checks its state), locked when asked. */
  findById(m: EntityManager, id: string, lock = false): Promise<WebhookEndpoint | null> {
    return m.findOne(WebhookEndpoint, { where: { id }, lock: lock ? this.db.rowLock : undefined });
  }

  /**
   * The delivery claim's first step: up to `limit` endpoints whose deliveries may be due at
   * `now`, longest waiting first, but those in `skip` (busy here) and those of the organizations
   * in `skipOrganizations`; claimLock, so that instances claiming at once visit different ones.
   */
  due(
    m: EntityManager,
    now: Date,
    limit: number,
    skip: { endpoints: string[]; organizations: string[] },
  ): Promise<WebhookEndpoint[]> {
    const qb = m
      .createQueryBuilder(WebhookEndpoint, 'e')
      .where('e.nextDeliveryAt IS NOT NULL')
      .andWhere('e.nextDeliveryAt <= :now', { now });
    if (skip.endpoints.length > 0) qb.andWhere('e.id NOT IN (:...busy)', { busy: skip.endpoints });
    if (skip.organizations.length > 0) {
      qb.andWhere('e.organizationId NOT IN (:...orgs)', { orgs: skip.organizations });
    }
    return claimLock(qb.orderBy('e.nextDeliveryAt', 'ASC').limit(limit)).getMany();
  }

  /** Ends an endpoint's failing streak: locks nothing when it has none. */
  async stopFailing(m: EntityManager, id: string): Promise<void> {
    await m.update(WebhookEndpoint, { id, failingSince: Not(IsNull()) }, { failingSince: null });
  }

  /** When the claim should visit an endpoint again (null: it has nothing left to deliver). */
  async setNextDelivery(m: EntityManager, id: string, at: Date | null): Promise<void> {
    await m.update(WebhookEndpoint, { id }, { nextDeliveryAt: at });
  }

  /** These endpoints have a delivery due at `at`: visited then at the latest. */
  async dueBy(m: EntityManager, ids: string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    const later = Or(IsNull(), MoreThan(at));
    await m.update(WebhookEndpoint, { id: In(ids), nextDeliveryAt: later }, { nextDeliveryAt: at });
  }
}
