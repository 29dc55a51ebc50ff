import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Tenant, ownedBy } from '../common/tenant';
import { Database } from '../database/database';
import { Product } from './entities/product.entity';

/** The queries of products. Every method runs on the entity manager of the caller's unit of work. */
@Injectable()
export class ProductsRepository {
  constructor(private readonly db: Database) {}

  async insert(m: EntityManager, product: Product): Promise<void> {
    await m.insert(Product, product);
  }

  /** The tenant's product; locked for a read-modify-write on PostgreSQL when `lock` is set. */
  find(m: EntityManager, tenant: Tenant, id: string, lock = false): Promise<Product | null> {
    return m.findOne(Product, {
      where: { id, ...ownedBy(tenant) },
      lock: lock ? this.db.rowLock : undefined,
    });
  }

  exists(m: EntityManager, tenant: Tenant, id: string): Promise<boolean> {
    return m.exists(Product, { where: { id, ...ownedBy(tenant) } });
  }

  /** A page of the organization's products in one mode, newest first, and their total. */
  page(
    m: EntityManager,
    tenant: Tenant,
    page: { limit: number; offset: number },
  ): Promise<[Product[], number]> {
    return m.findAndCount(Product, {
      where: ownedBy(tenant),
      order: { createdAt: 'DESC', id: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
  }

  async update(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    changes: Partial<Product>,
  ): Promise<void> {
    await m.update(Product, { id, ...ownedBy(tenant) }, changes);
  }
}
