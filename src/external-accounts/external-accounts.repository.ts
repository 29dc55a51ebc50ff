import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, IsNull } from 'typeorm';
import { Tenant, ownedBy } from '../common/tenant';
import { Database } from '../database/database';
import { EntityTable } from '../database/entity-table';
import { ExternalBankAccount } from './entities/external-bank-account.entity';

export interface ExternalAccountFilter {
  status?: ExternalBankAccount['status'];
  currency?: string;
  countryCode?: string;
}

/**
 * The queries of external bank accounts, on the entity manager of the caller's unit of work.
 * Reading one account and its update are constant SQL through the EntityTable mechanism (the
 * PATCH hot path, docs/benchmarks.md); the rest is TypeORM.
 */
@Injectable()
export class ExternalAccountsRepository {
  private statements?: {
    table: EntityTable<ExternalBankAccount>;
    find: string;
    findForUpdate: string;
    update: string;
  };

  constructor(private readonly db: Database) {}

  async insert(m: EntityManager, account: ExternalBankAccount): Promise<void> {
    await m.insert(ExternalBankAccount, account);
  }

  /** An undeleted account of the tenant, locked on PostgreSQL when `lock` is set. */
  async find(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    lock = false,
  ): Promise<ExternalBankAccount | null> {
    const { table, find, findForUpdate } = this.sql;
    const [row] = await this.db.rows(m, lock ? findForUpdate : find, [
      id,
      tenant.organizationId,
      tenant.livemode,
    ]);
    return row ? table.fromRow(row) : null;
  }

  page(
    m: EntityManager,
    tenant: Tenant,
    filter: ExternalAccountFilter,
    page: { limit: number; offset: number },
  ): Promise<[ExternalBankAccount[], number]> {
    const where: FindOptionsWhere<ExternalBankAccount> = {
      ...ownedBy(tenant),
      deletedAt: IsNull(),
    };
    if (filter.status !== undefined) where.status = filter.status;
    if (filter.currency !== undefined) where.currency = filter.currency;
    if (filter.countryCode !== undefined) where.countryCode = filter.countryCode;
    return m.findAndCount(ExternalBankAccount, {
      where,
      order: { createdAt: 'DESC', id: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
  }

  /** Writes the fields a PATCH may change (holder, status, metadata) and updatedAt. */
  async update(m: EntityManager, account: ExternalBankAccount): Promise<void> {
    const { table, update } = this.sql;
    await this.db.execute(m, update, [
      account.accountHolderName,
      account.accountHolderType,
      account.status,
      account.statusReason,
      table.param('metadata', account.metadata),
      table.param('updatedAt', account.updatedAt),
      account.id,
    ]);
  }

  async softDelete(m: EntityManager, id: string, now: Date): Promise<void> {
    await m.update(ExternalBankAccount, { id }, { deletedAt: now, updatedAt: now });
  }

  /** The SQL of the hot paths, built once (the table's columns are known after start-up). */
  private get sql() {
    if (!this.statements) {
      const table = this.db.table(ExternalBankAccount);
      const find =
        `SELECT ${table.columnList()} FROM "external_bank_accounts" ` +
        'WHERE "id" = ? AND "organization_id" = ? AND "livemode" = ? AND "deleted_at" IS NULL LIMIT 1';
      this.statements = {
        table,
        find,
        findForUpdate: this.db.isPostgres ? `${find} FOR UPDATE` : find,
        update:
          'UPDATE "external_bank_accounts" SET "account_holder_name" = ?, "account_holder_type" = ?, ' +
          '"status" = ?, "status_reason" = ?, "metadata" = ?, "updated_at" = ? WHERE "id" = ?',
      };
    }
    return this.statements;
  }
}
