import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, In, LessThanOrEqual } from 'typeorm';
import { Organization } from '../auth/entities/organization.entity';
import { Tenant, ownedBy } from '../common/tenant';
import { TestClock } from '../customers/entities/test-clock.entity';
import { Database } from '../database/database';
import { claimLock } from '../database/lease-poller';
import { Invoice, InvoiceStatus } from './entities/invoice.entity';
import { InvoiceLine } from './entities/invoice-line.entity';
import { InvoiceNumber } from './entities/invoice-number.entity';

export interface InvoiceFilter {
  customerId?: string;
  subscriptionId?: string;
  status?: InvoiceStatus;
}

/** The queries of invoices, their lines and their numbers, on the caller's entity manager. */
@Injectable()
export class InvoicesRepository {
  constructor(private readonly db: Database) {}

  /** The tenant's invoice, locked on PostgreSQL when `lock` is set. */
  find(m: EntityManager, tenant: Tenant, id: string, lock = false): Promise<Invoice | null> {
    return m.findOne(Invoice, {
      where: { id, ...ownedBy(tenant) },
      lock: lock ? this.db.rowLock : undefined,
    });
  }

  /** The invoice of a subscription's period (by its start), locked on PostgreSQL. */
  findOfPeriod(
    m: EntityManager,
    subscriptionId: string,
    periodStart: Date,
  ): Promise<Invoice | null> {
    return m.findOne(Invoice, {
      where: { subscriptionId, periodStart },
      lock: this.db.rowLock,
    });
  }

  /** Every invoice of a subscription, oldest period first. */
  ofSubscription(m: EntityManager, subscriptionId: string): Promise<Invoice[]> {
    return m.find(Invoice, { where: { subscriptionId }, order: { periodStart: 'ASC' } });
  }

  lines(m: EntityManager, invoiceId: string): Promise<InvoiceLine[]> {
    return m.find(InvoiceLine, { where: { invoiceId }, order: { position: 'ASC' } });
  }

  /** The lines of several invoices, by invoice, each in order. */
  async linesOf(m: EntityManager, invoiceIds: string[]): Promise<Map<string, InvoiceLine[]>> {
    const byInvoice = new Map<string, InvoiceLine[]>(invoiceIds.map((id) => [id, []]));
    if (invoiceIds.length === 0) return byInvoice;
    const rows = await m.find(InvoiceLine, {
      where: { invoiceId: In(invoiceIds) },
      order: { invoiceId: 'ASC', position: 'ASC' },
    });
    for (const line of rows) byInvoice.get(line.invoiceId)?.push(line);
    return byInvoice;
  }

  page(
    m: EntityManager,
    tenant: Tenant,
    filter: InvoiceFilter,
    page: { limit: number; offset: number },
  ): Promise<[Invoice[], number]> {
    const where: FindOptionsWhere<Invoice> = ownedBy(tenant);
    if (filter.customerId) where.customerId = filter.customerId;
    if (filter.subscriptionId) where.subscriptionId = filter.subscriptionId;
    if (filter.status) where.status = filter.status;
    return m.findAndCount(Invoice, {
      where,
      order: { createdAt: 'DESC', id: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
  }

  async insert(m: EntityManager, invoice: Invoice, lines: InvoiceLine[]): Promise<void> {
    await m.insert(Invoice, invoice);
    if (lines.length > 0) await m.insert(InvoiceLine, lines);
  }

  async update(m: EntityManager, id: string, changes: Partial<Invoice>): Promise<void> {
    await m.update(Invoice, { id }, changes);
  }

  /** Replaces a draft's lines (a recomputation). */
  async replaceLines(m: EntityManager, invoiceId: string, lines: InvoiceLine[]): Promise<void> {
    await m.delete(InvoiceLine, { invoiceId });
    if (lines.length > 0) await m.insert(InvoiceLine, lines);
  }

  /**
   * The next invoice number of the tenant: the counter row is created at the first issue and
   * locked (the one locked-read spelling, `db.rowLock`) until the issuing transaction commits,
   * so two issues never take one number and a rolled-back issue gives its number back.
   */
  async nextNumber(m: EntityManager, tenant: Tenant): Promise<number> {
    await m
      .createQueryBuilder()
      .insert()
      .into(InvoiceNumber)
      .values({ ...ownedBy(tenant), lastNumber: 0 })
      .orIgnore()
      .execute();
    const row = await m.findOneOrFail(InvoiceNumber, {
      where: ownedBy(tenant),
      lock: this.db.rowLock,
    });
    const next = row.lastNumber + 1;
    await m.update(InvoiceNumber, ownedBy(tenant), { lastNumber: next });
    return next;
  }

  /** What time it is for an invoice's customer: its test clock's frozenTime, else real time. */
  async customerNow(m: EntityManager, testClockId: string | null): Promise<Date> {
    if (testClockId === null) return new Date();
    const clock = await m.findOne(TestClock, { where: { id: testClockId } });
    return clock?.frozenTime ?? new Date();
  }

  /** The organization's name, for the document. */
  async organizationName(m: EntityManager, organizationId: string): Promise<string> {
    const org = await m.findOne(Organization, { where: { id: organizationId } });
    return org?.name ?? '';
  }

  /**
   * Claims up to `limit` drafts whose grace has ended at `now` (issue_due_at ≤ now), oldest first,
   * and moves their issue_due_at to `leaseUntil`: the billing run's lease (LeasePoller).
   */
  async claimDueDrafts(
    m: EntityManager,
    now: Date,
    limit: number,
    leaseUntil: Date,
  ): Promise<Invoice[]> {
    const due = await claimLock(
      m
        .createQueryBuilder(Invoice, 'i')
        .where('i.issueDueAt <= :now', { now })
        .orderBy('i.issueDueAt', 'ASC')
        .addOrderBy('i.id', 'ASC')
        .limit(limit),
    ).getMany();
    if (due.length > 0) {
      await m.update(Invoice, { id: In(due.map((i) => i.id)) }, { issueDueAt: leaseUntil });
    }
    return due;
  }

  /**
   * Claims up to `limit` issued invoices, in real time, whose look for late usage is due at `now`
   * (late_check_at ≤ now), and moves their late_check_at to `leaseUntil` (LeasePoller).
   */
  async claimDueLateChecks(
    m: EntityManager,
    now: Date,
    limit: number,
    leaseUntil: Date,
  ): Promise<Invoice[]> {
    const due = await claimLock(
      m
        .createQueryBuilder(Invoice, 'i')
        .where('i.lateCheckAt <= :now', { now })
        .andWhere('i.testClockId IS NULL')
        .orderBy('i.lateCheckAt', 'ASC')
        .addOrderBy('i.id', 'ASC')
        .limit(limit),
    ).getMany();
    if (due.length > 0) {
      await m.update(Invoice, { id: In(due.map((i) => i.id)) }, { lateCheckAt: leaseUntil });
    }
    return due;
  }

  /** The invoices on a test clock whose look for late usage is due by `now`, in order. */
  dueLateChecksOnClock(
    m: EntityManager,
    testClockId: string,
    now: Date,
    limit?: number,
  ): Promise<Invoice[]> {
    return m.find(Invoice, {
      where: { testClockId, lateCheckAt: LessThanOrEqual(now) },
      order: { lateCheckAt: 'ASC', id: 'ASC' },
      take: limit,
    });
  }

  /** The drafts on a test clock whose grace has ended by `now`, in the order they end. */
  dueDraftsOnClock(
    m: EntityManager,
    testClockId: string,
    now: Date,
    limit?: number,
  ): Promise<Invoice[]> {
    return m.find(Invoice, {
      where: { testClockId, status: 'draft', graceEndsAt: LessThanOrEqual(now) },
      order: { graceEndsAt: 'ASC', id: 'ASC' },
      take: limit,
    });
  }
}
