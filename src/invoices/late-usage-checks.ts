import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import { LeasePoller } from '../database/lease-poller';
import { AdvancingClock, ClockStep } from '../subscriptions/subscriptions.service';
import { BillingRun } from './billing-run';
import { Invoice } from './entities/invoice.entity';
import { ClosedPeriod, InvoiceLines, Terms } from './invoice-lines';
import { InvoicesRepository } from './invoices.repository';
import { InvoicesService } from './invoices.service';

const LATE_CHECK_JOB = { intervalMs: 1000, concurrency: 4, leaseMs: 60_000 };

/**
 * Late usage of an ended subscription (docs/api.md §5.12 "an invoice of its own"): its last
 * issued invoice holds `lateCheckAt` (InvoicesService.nextLateCheck sets it at the issue). On real
 * time the lease poller's `invoice-late-usage` job looks at it when due; on a test clock, the
 * clock's advance (this is its ClockStep), on clock time.
 */
@Injectable()
export class LateUsageChecks implements ClockStep, OnApplicationBootstrap {
  readonly name = 'invoice-late-usage';

  constructor(
    private readonly db: Database,
    private readonly billing: BillingRun,
    private readonly invoices: InvoicesService,
    private readonly lines: InvoiceLines,
    private readonly repository: InvoicesRepository,
    private readonly poller: LeasePoller,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.poller.register<Invoice>({
      name: this.name,
      ...LATE_CHECK_JOB,
      claim: (m, now, limit, leaseUntil) =>
        this.repository.claimDueLateChecks(m, now, limit, leaseUntil),
      run: (invoice) => this.db.transaction((m) => this.lateUsageCheck(m, invoice, new Date())),
    });
  }

  /**
   * One look, at `at` on the customer's clock: the late lines are computed as for any invoice,
   * and when there are some they go on a draft of their own, issued after the grace, which then
   * holds the next look. Idempotent: the draft's period starts at the last invoice's issue, so the
   * unique (subscription, period start) keeps a look run twice to one draft.
   */
  async lateUsageCheck(m: EntityManager, claimed: Invoice, at: Date): Promise<void> {
    const tenant = { organizationId: claimed.organizationId, livemode: claimed.livemode };
    const last = await this.repository.find(m, tenant, claimed.id, true);
    if (!last || last.lateCheckAt === null || last.issuedAt === null) return;
    const all = await this.repository.ofSubscription(m, last.subscriptionId);
    const latest = all
      .filter((i) => i.issuedAt !== null)
      .reduce((a, b) => (b.issuedAt! > a.issuedAt! ? b : a));
    if (latest.id !== last.id || all.some((i) => i.status === 'draft')) {
      await this.repository.update(m, last.id, { lateCheckAt: null });
      return;
    }
    const closed: ClosedPeriod = {
      tenant,
      subscriptionId: last.subscriptionId,
      customerId: last.customerId,
      planId: last.planId,
      period: { start: last.issuedAt, end: at },
      billedEnd: at,
    };
    const tax = { behavior: last.taxBehavior, rate: last.taxRate };
    const terms: Terms = { currency: last.currency, tax, fixedFee: null, prices: [] };
    const lines = await this.lines.linesFor(m, closed, terms, at);
    if (lines.length === 0) {
      const next = await this.invoices.nextLateCheck(m, last.subscriptionId, at);
      await this.repository.update(m, last.id, { lateCheckAt: next });
      return;
    }
    await this.billing.saveDraft(m, {
      tenant,
      customerId: last.customerId,
      subscriptionId: last.subscriptionId,
      planId: last.planId,
      currency: last.currency,
      periodStart: last.issuedAt,
      periodEnd: at,
      tax,
      customer: last.customer,
      testClockId: last.testClockId,
      graceEndsAt: new Date(at.getTime() + this.config.invoiceGraceSeconds * 1000),
      lines,
    });
    await this.repository.update(m, last.id, { lateCheckAt: null });
  }

  /** ClockStep: when the next look for late usage on a test clock is due, or null. */
  async nextDueAt(m: EntityManager, clock: AdvancingClock): Promise<Date | null> {
    const [first] = await this.repository.dueLateChecksOnClock(m, clock.id, new Date(8.64e15), 1);
    return first ? first.lateCheckAt : null;
  }

  /** ClockStep: the looks for late usage due by `until`, each at its instant. */
  async runDue(m: EntityManager, clock: AdvancingClock, until: Date): Promise<void> {
    for (const invoice of await this.repository.dueLateChecksOnClock(m, clock.id, until)) {
      await this.lateUsageCheck(m, invoice, invoice.lateCheckAt!);
    }
  }
}
