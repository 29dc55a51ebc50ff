import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, In, IsNull } from 'typeorm';
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

  /**
   * Writes the fields a PATCH may change (holder, status, metadata), the verification a
   * resubmission starts, and updatedAt.
   */
  async update(m: EntityManager, account: ExternalBankAccount): Promise<void> {
    const { table, update } = this.sql;
    await this.db.execute(m, update, [
      account.accountHolderName,
      account.accountHolderType,
      account.status,
      account.statusReason,
      table.param('metadata', account.metadata),
      account.verificationSubmission,
      table.param('verificationDueAt', account.verificationDueAt),
      table.param('updatedAt', account.updatedAt),
      account.id,
    ]);
  }

  /** Deleted: gone from the API, and nothing is left for the verification worker to decide. */
  async softDelete(m: EntityManager, id: string, now: Date): Promise<void> {
    await m.update(
      ExternalBankAccount,
      { id },
      { deletedAt: now, updatedAt: now, verificationDueAt: null },
    );
  }

  /**
   * An undeleted account by id alone, whatever its organization and mode (the verification
   * worker and the operator's command line), locked on PostgreSQL when `lock` is set.
   */
  findById(m: EntityManager, id: string, lock = false): Promise<ExternalBankAccount | null> {
    return m.findOne(ExternalBankAccount, {
      where: { id, deletedAt: IsNull() },
      lock: lock ? this.db.rowLock : undefined,
    });
  }

  /**
   * Up to `limit` accounts whose automatic verification is due at `now`, soonest first. On
   * PostgreSQL the rows are locked FOR UPDATE SKIP LOCKED: another instance claiming at the same
   * moment skips them instead of waiting, and takes others. (On SQLite every transaction holds
   * the database's write lock, so two claims never overlap.)
   */
  due(m: EntityManager, now: Date, limit: number): Promise<ExternalBankAccount[]> {
    const qb = m
      .createQueryBuilder(ExternalBankAccount, 'a')
      .where('a.verificationDueAt IS NOT NULL')
      .andWhere('a.verificationDueAt <= :now', { now })
      .orderBy('a.verificationDueAt', 'ASC')
      .limit(limit);
    if (this.db.isPostgres) qb.setLock('pessimistic_write').setOnLocked('skip_locked');
    return qb.getMany();
  }

  /**
   * Moves verifications to `at` (a claim's lease; null: nothing due). Not a change a client
   * sees, so updatedAt stays.
   */
  async setDue(m: EntityManager, ids: string[], at: Date | null): Promise<void> {
    if (ids.length === 0) return;
    await m.update(ExternalBankAccount, { id: In(ids) }, { verificationDueAt: at });
  }

  /**
   * Writes the outcome of `submission` (a compare-and-set): only while the account is undeleted,
   * still pending, and still at that submission. Returns whether it wrote.
   */
  async decide(
    m: EntityManager,
    id: string,
    submission: number,
    outcome: Pick<ExternalBankAccount, 'status' | 'statusReason' | 'updatedAt'>,
  ): Promise<boolean> {
    const result = await m.update(
      ExternalBankAccount,
      { id, verificationSubmission: submission, status: 'pending', deletedAt: IsNull() },
      {
        status: outcome.status,
        statusReason: outcome.statusReason,
        updatedAt: outcome.updatedAt,
        verificationDueAt: null,
      },
    );
    return result.affected === 1;
  }

  /**
   * Live accounts waiting for verification, oldest first, of one organization or of all:
   * the operator's queue. Up to `limit`. `'pending'` is written into the SQL, not bound, so
   * that SQLite matches it with the partial index ix_external_bank_accounts_mode_pending.
   */
  awaitingOperator(
    m: EntityManager,
    organizationId: string | undefined,
    limit: number,
  ): Promise<ExternalBankAccount[]> {
    const qb = m
      .createQueryBuilder(ExternalBankAccount, 'a')
      .where('a.livemode = :livemode', { livemode: true })
      .andWhere(`a.status = 'pending'`)
      .andWhere('a.deletedAt IS NULL');
    if (organizationId !== undefined) {
      qb.andWhere('a.organizationId = :organizationId', { organizationId });
    }
    return qb.orderBy('a.createdAt', 'ASC').addOrderBy('a.id', 'ASC').limit(limit).getMany();
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
          '"status" = ?, "status_reason" = ?, "metadata" = ?, "verification_submission" = ?, ' +
          '"verification_due_at" = ?, "updated_at" = ? WHERE "id" = ?',
      };
    }
    return this.statements;
  }
}
