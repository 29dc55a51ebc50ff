import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { NotFoundError } from '../common/errors';
import { ID_PREFIXES, isIdOf } from '../common/ids';
import { Tenant, ownedBy } from '../common/tenant';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Customer } from '../customers/entities/customer.entity';
import { Database } from '../database/database';
import { LeaseJobHandle, LeasePoller } from '../database/lease-poller';
import { Subscription } from '../subscriptions/entities/subscription.entity';
import { nthPeriod } from '../subscriptions/subscriptions.service';
import { InvoiceResponse, toInvoiceResponse } from './dto/invoice.response';
import { BilledCustomer, Invoice } from './entities/invoice.entity';
import { ClosedPeriod, InvoiceLines } from './invoice-lines';
import { NoUpcomingInvoiceError } from './invoices.errors';
import { InvoicesRepository } from './invoices.repository';
import { DraftInvoice, InvoicesService } from './invoices.service';

const ISSUE_JOB = { intervalMs: 1000, concurrency: 8, leaseMs: 60_000 };

/**
 * The billing run (docs/api.md §5.12): a draft at each period's close, recomputed with the usage
 * stored until it is issued at the end of its grace (by the lease poller, or by a test clock's
 * advance on clock time), late usage as `lateUsage` lines, and the upcoming invoice computed by
 * the same code. Every invoice's lines come from InvoiceLines (invoice-lines.ts); an ended
 * subscription's late usage is looked for by LateUsageChecks (late-usage-checks.ts).
 */
@Injectable()
export class BillingRun implements OnApplicationBootstrap {
  private issueJob?: LeaseJobHandle;

  constructor(
    private readonly db: Database,
    private readonly invoices: InvoicesService,
    private readonly repository: InvoicesRepository,
    private readonly lines: InvoiceLines,
    private readonly poller: LeasePoller,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.issueJob = this.poller.register<Invoice>({
      name: 'invoice-issue',
      ...ISSUE_JOB,
      claim: (m, now, limit, leaseUntil) =>
        this.repository.claimDueDrafts(m, now, limit, leaseUntil),
      run: (invoice) =>
        this.db.transaction(async (m) => {
          const tenant = { organizationId: invoice.organizationId, livemode: invoice.livemode };
          await this.invoices.issueDue(m, tenant, invoice.id, new Date());
        }),
    });
  }

  /**
   * The port the subscriptions module calls, in its transaction, when a period closes: the
   * period's draft is saved (or recomputed, if a run reached it already), with the late usage of
   * earlier periods. Idempotent: the unique (subscription, period start) keeps it to one invoice.
   */
  async periodClosed(m: EntityManager, closed: ClosedPeriod): Promise<Invoice> {
    // A period closed again (another run, another instance) keeps its invoice: an issued one as it
    // is, a draft recomputed without counting its own late lines as billed.
    const existing = await this.repository.findOfPeriod(
      m,
      closed.subscriptionId,
      closed.period.start,
    );
    if (existing && existing.status !== 'draft') return existing;
    const terms = await this.lines.termsOf(m, closed.planId);
    const customer = await this.customerOf(m, closed.customerId);
    const lines = await this.lines.linesFor(m, closed, terms, closed.billedEnd, existing?.id);
    const draft: DraftInvoice = {
      tenant: closed.tenant,
      customerId: closed.customerId,
      subscriptionId: closed.subscriptionId,
      planId: closed.planId,
      currency: terms.currency,
      periodStart: closed.period.start,
      periodEnd: closed.billedEnd,
      tax: terms.tax,
      customer: customer.billed,
      testClockId: customer.testClockId,
      graceEndsAt: new Date(closed.billedEnd.getTime() + this.config.invoiceGraceSeconds * 1000),
      lines,
    };
    return this.saveDraft(m, draft);
  }

  /** Saves a draft (InvoicesService.saveDraft) and wakes the issue job when it is due already. */
  async saveDraft(m: EntityManager, draft: DraftInvoice): Promise<Invoice> {
    const invoice = await this.invoices.saveDraft(m, draft);
    if (invoice.issueDueAt !== null && invoice.issueDueAt <= new Date()) this.issueJob?.wake();
    return invoice;
  }

  /**
   * The invoice of the current period as it would be issued at its end with the usage stored now
   * (docs/api.md §5.12 "Preview equals invoice"): the same `linesFor` as the real one.
   */
  async upcoming(m: EntityManager, closed: ClosedPeriod): Promise<InvoiceResponse> {
    const terms = await this.lines.termsOf(m, closed.planId);
    const lines = await this.lines.linesFor(m, closed, terms, closed.billedEnd);
    const totalsOf = this.invoices.totalsOf(lines, terms);
    const now = new Date(0);
    const invoice: Invoice = {
      id: '',
      organizationId: closed.tenant.organizationId,
      livemode: closed.tenant.livemode,
      customerId: closed.customerId,
      subscriptionId: closed.subscriptionId,
      planId: closed.planId,
      number: null,
      status: 'draft',
      currency: terms.currency,
      periodStart: closed.period.start,
      periodEnd: closed.billedEnd,
      ...totalsOf,
      customer: { name: '', email: '', address: null },
      testClockId: null,
      graceEndsAt: now,
      issueDueAt: null,
      lateCheckAt: null,
      issuedAt: null,
      paidAt: null,
      voidedAt: null,
      paymentReference: null,
      createdAt: now,
      updatedAt: now,
    };
    const view = toInvoiceResponse(
      invoice,
      lines.map((line, position) => ({ ...line, id: '', invoiceId: '', position })),
    );
    return {
      ...view,
      id: null,
      status: 'upcoming',
      createdAt: null,
      updatedAt: null,
      lines: view.lines.map((line) => ({ ...line, id: null })),
    };
  }

  /**
   * GET /v0/subscriptions/{id}/upcomingInvoice: the invoice of the subscription's current period
   * (its first, while pending) as it would be issued at the period's end with the usage stored now.
   */
  async upcomingFor(tenant: Tenant, subscriptionId: string): Promise<InvoiceResponse> {
    if (!isIdOf(ID_PREFIXES.subscription, subscriptionId)) {
      throw new NotFoundError('subscription', subscriptionId);
    }
    return this.db.snapshot(async (m) => {
      const s = await m.findOne(Subscription, {
        where: { id: subscriptionId, ...ownedBy(tenant) },
      });
      if (!s) throw new NotFoundError('subscription', subscriptionId);
      if (s.status === 'terminated') throw new NoUpcomingInvoiceError(s.id);
      const period =
        s.currentPeriodStart && s.currentPeriodEnd
          ? { start: s.currentPeriodStart, end: s.currentPeriodEnd }
          : nthPeriod(s.billingAnchor, s.billingInterval, 0);
      const billedEnd = s.endingAt && s.endingAt < period.end ? s.endingAt : period.end;
      return this.upcoming(m, {
        tenant,
        subscriptionId: s.id,
        customerId: s.customerId,
        planId: s.planId,
        period: { start: period.start, end: period.end },
        billedEnd,
      });
    });
  }

  /**
   * A test clock's advance (docs/api.md §5.9): issues, in the order their grace ends, the drafts
   * of the clock's customers whose grace ended by `until`, each at that instant on the clock.
   */
  async issueDueOnClock(m: EntityManager, testClockId: string, until: Date): Promise<void> {
    for (const draft of await this.repository.dueDraftsOnClock(m, testClockId, until)) {
      const tenant = { organizationId: draft.organizationId, livemode: draft.livemode };
      await this.invoices.issueDue(m, tenant, draft.id, draft.graceEndsAt);
    }
  }

  /** When the next draft on a test clock ends its grace (ClockStep.nextDueAt), or null. */
  async nextGraceEndOnClock(m: EntityManager, testClockId: string): Promise<Date | null> {
    const [first] = await this.repository.dueDraftsOnClock(m, testClockId, new Date(8.64e15), 1);
    return first ? first.graceEndsAt : null;
  }

  /** Recomputes a draft before it is issued: its period's usage and late usage as stored now. */
  private async customerOf(
    m: EntityManager,
    id: string,
  ): Promise<{ billed: BilledCustomer; testClockId: string | null }> {
    const c = await m.findOneOrFail(Customer, { where: { id } });
    return {
      billed: { name: c.name, email: c.email, address: c.address },
      testClockId: c.testClockId,
    };
  }
}
