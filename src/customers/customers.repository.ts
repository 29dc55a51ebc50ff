import { Injectable } from '@nestjs/common';
import { EntityManager, In, IsNull } from 'typeorm';
import { Tenant, ownedBy } from '../common/tenant';
import { Database } from '../database/database';
import { ListCustomersQueryDto } from './dto/list-customers-query.dto';
import { Customer } from './entities/customer.entity';

/** The queries of customers. Deleted customers are not found (their rows stay for invoices). */
@Injectable()
export class CustomersRepository {
  constructor(private readonly db: Database) {}

  async insert(m: EntityManager, customer: Customer): Promise<void> {
    await m.insert(Customer, customer);
  }

  /** The customer, not deleted; locked for a read-modify-write on PostgreSQL with `lock`. */
  find(m: EntityManager, tenant: Tenant, id: string, lock = false): Promise<Customer | null> {
    return m.findOne(Customer, {
      where: { id, ...ownedBy(tenant), deletedAt: IsNull() },
      lock: lock ? this.db.rowLock : undefined,
    });
  }

  /** The customers of these ids or these external ids, not deleted. */
  findMany(
    m: EntityManager,
    tenant: Tenant,
    ids: string[],
    externalIds: string[],
  ): Promise<Customer[]> {
    const where = [];
    if (ids.length > 0) where.push({ id: In(ids), ...ownedBy(tenant), deletedAt: IsNull() });
    if (externalIds.length > 0) {
      where.push({ externalId: In(externalIds), ...ownedBy(tenant), deletedAt: IsNull() });
    }
    if (where.length === 0) return Promise.resolve([]);
    return m.find(Customer, { where, select: ['id', 'externalId', 'testClockId'] });
  }

  page(
    m: EntityManager,
    tenant: Tenant,
    query: ListCustomersQueryDto,
  ): Promise<[Customer[], number]> {
    return m.findAndCount(Customer, {
      where: {
        ...ownedBy(tenant),
        deletedAt: IsNull(),
        ...(query.email !== undefined ? { email: query.email } : {}),
        ...(query.externalId !== undefined ? { externalId: query.externalId } : {}),
      },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: query.limit,
      skip: query.offset,
    });
  }

  async update(m: EntityManager, id: string, changes: Partial<Customer>): Promise<void> {
    await m.update(Customer, { id }, changes);
  }

  /** Adds `delta` to the customer's count of active and pending subscriptions. */
  async addSubscriptions(m: EntityManager, id: string, delta: number): Promise<void> {
    await m.increment(Customer, { id }, 'subscriptionCount', delta);
  }

  /** How many customers, not deleted, live on this test clock. */
  countOnClock(m: EntityManager, testClockId: string): Promise<number> {
    return m.countBy(Customer, { testClockId, deletedAt: IsNull() });
  }
}
