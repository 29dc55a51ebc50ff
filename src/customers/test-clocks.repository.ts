import { Injectable } from '@nestjs/common';
import { EntityManager, IsNull } from 'typeorm';
import { Tenant, ownedBy } from '../common/tenant';
import { Database } from '../database/database';
import { TestClock } from './entities/test-clock.entity';

/** The queries of test clocks. Deleted clocks are not found. */
@Injectable()
export class TestClocksRepository {
  constructor(private readonly db: Database) {}

  async insert(m: EntityManager, clock: TestClock): Promise<void> {
    await m.insert(TestClock, clock);
  }

  /** The clock, not deleted; locked for a read-modify-write on PostgreSQL with `lock`. */
  find(m: EntityManager, tenant: Tenant, id: string, lock = false): Promise<TestClock | null> {
    return m.findOne(TestClock, {
      where: { id, ...ownedBy(tenant), deletedAt: IsNull() },
      lock: lock ? this.db.rowLock : undefined,
    });
  }

  /** The clock's time, deleted or not (a customer keeps the clock it was created on). */
  async frozenTime(m: EntityManager, tenant: Tenant, id: string): Promise<Date | null> {
    const clock = await m.findOne(TestClock, {
      where: { id, ...ownedBy(tenant) },
      select: ['id', 'frozenTime'],
    });
    return clock?.frozenTime ?? null;
  }

  page(
    m: EntityManager,
    tenant: Tenant,
    page: { limit: number; offset: number },
  ): Promise<[TestClock[], number]> {
    return m.findAndCount(TestClock, {
      where: { ...ownedBy(tenant), deletedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
  }

  async update(m: EntityManager, id: string, changes: Partial<TestClock>): Promise<void> {
    await m.update(TestClock, { id }, changes);
  }
}
