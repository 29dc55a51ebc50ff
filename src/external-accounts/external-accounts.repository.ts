import { Injectable } from '@nestjs/common';
import { EntityManager, In, IsNull } from 'typeorm';
import { Tenant, ownedBy } from '../common/tenant';
import { Database } from '../database/database';
import { claimLock } from '../database/lease-poller';
import { ExternalBankAccount } from './entities/external-bank-account.entity';

/** The queries of external bank accounts, on the entity manager of the caller's unit of work. */
@Injectable()
export class ExternalAccountsRepository {
  constructor(private readonly db: Database) {}

  async insert(m: EntityManager, account: ExternalBankAccount): Promise<void> {
    await m.insert(ExternalBankAccount, account);
  }

  /** An undeleted account of the tenant, locked on PostgreSQL when `lock` is set. */
  find(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    lock = false,
  ): Promise<ExternalBankAccount | null> {
    return m.findOne(ExternalBankAccount, {
      where: { id, ...ownedBy(tenant), deletedAt: IsNull() },
      lock: lock ? this.db.rowLock : undefined,
    });
  }

  page(
    m: EntityManager,
    tenant: Tenant,
    filter: Partial<Pick<ExternalBankAccount, 'status' | 'currency' | 'countryCode'>>,
    page: { limit: number; offset: number },
  ): Promise<[ExternalBankAccount[], number]> {
    return m.findAndCount(ExternalBankAccount, {
      // A filter left out is undefined, which TypeORM leaves out of the WHERE.
      where: {
        ...ownedBy(tenant),
        deletedAt: IsNull(),
        status: filter.status,
        currency: filter.currency,
        countryCode: filter.countryCode,
      },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
  }

  /** Writes what a PATCH changed: holder, status, metadata, a resubmission, updatedAt. */
  async update(
    m: EntityManager,
    account: ExternalBankAccount,
    changes: Partial<ExternalBankAccount>,
  ): Promise<void> {
    await m.update(
      ExternalBankAccount,
      { id: account.id, organizationId: account.organizationId },
      changes,
    );
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
   * The lease poller's claim: up to `limit` accounts whose automatic verification is due at
   * `now`, soonest first, moved to `leaseUntil` (claimLock: two instances never take one).
   */
  async claimDue(
    m: EntityManager,
    now: Date,
    limit: number,
    leaseUntil: Date,
  ): Promise<ExternalBankAccount[]> {
    const due = await claimLock(
      m
        .createQueryBuilder(ExternalBankAccount, 'a')
        .where('a.verificationDueAt IS NOT NULL')
        .andWhere('a.verificationDueAt <= :now', { now })
        .orderBy('a.verificationDueAt', 'ASC')
        .limit(limit),
    ).getMany();
    const ids = due.map((a) => a.id);
    await this.setDue(m, ids, leaseUntil);
    return due;
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
      { ...outcome, verificationDueAt: null },
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
}
