import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { BillableMetric } from '../catalog/entities/billable-metric.entity';
import { NotFoundError } from '../common/errors';
import { ID_PREFIXES, isIdOf } from '../common/ids';
import { Tenant, ownedBy } from '../common/tenant';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Customer } from '../customers/entities/customer.entity';
import { Database } from '../database/database';
import { LeaseJobHandle, LeasePoller } from '../database/lease-poller';
import { Plan } from '../plans/entities/plan.entity';
import { Price } from '../plans/entities/price.entity';
import { Subscription } from '../subscriptions/entities/subscription.entity';
import { nthPeriod } from '../subscriptions/subscriptions.service';
// The one aggregation of usage, which the usage module exports for the invoices (docs/api.md §5.11).
// eslint-disable-next-line no-restricted-imports
import { UsageAggregator } from '../usage/usage-aggregator';
import { ChargedPrice, Decimal, chargeFor, fixedFeeLineAmount, lineAmount } from './charging';
import { InvoiceResponse, toInvoiceResponse } from './dto/invoice.response';
import { BilledCustomer, Invoice } from './entities/invoice.entity';
import { InvoiceLine } from './entities/invoice-line.entity';
import { NoUpcomingInvoiceError } from './invoices.errors';
import { InvoicesRepository } from './invoices.repository';
import { DraftInvoice, DraftLine, InvoicesService } from './invoices.service';

/**
 * A period that closed (docs/api.md §5.10): at its end, or early by a termination or a plan change
 * (`billedEnd` before `period.end`). The subscriptions module hands it to `BillingRun.periodClosed`
 * in the transaction that closes it.
 */
export interface ClosedPeriod {
  tenant: Tenant;
  subscriptionId: string;
  customerId: string;
  planId: string;
  /** The whole period [start, end) as the anchor makes it. */
  period: { start: Date; end: Date };
  /** The end of the part billed: period.end, or the instant of a termination or plan change. */
  billedEnd: Date;
}

/** One price as an invoice applies it: its own copy (docs/api.md §5.4). */
interface AppliedPrice {
  priceId: string;
  billableMetricId: string;
  description: string;
  model: string;
  properties: object;
}

/** The plan's terms a period is billed with. */
interface Terms {
  currency: string;
  tax: { behavior: 'exclusive' | 'inclusive'; rate: string };
  fixedFee: { description: string; amount: string } | null;
  prices: AppliedPrice[];
}

const ISSUE_JOB = { intervalMs: 1000, concurrency: 8, leaseMs: 60_000 };
const LATE_CHECK_JOB = { intervalMs: 1000, concurrency: 4, leaseMs: 60_000 };
/** How far back a usage event's timestamp may be (docs/api.md §5.11): no late usage after that. */
const USAGE_WINDOW_MS = 90 * 24 * 3600 * 1000;

/**
 * The billing run (docs/api.md §5.12): a draft at each period's close, recomputed with the usage
 * stored until it is issued at the end of its grace (by the lease poller, or by a test clock's
 * advance on clock time), late usage as `lateUsage` lines, and the upcoming invoice computed by
 * the same code. Every invoice's lines come from `linesFor`.
 */
@Injectable()
export class BillingRun implements OnApplicationBootstrap {
  private issueJob?: LeaseJobHandle;

  constructor(
    private readonly db: Database,
    private readonly invoices: InvoicesService,
    private readonly repository: InvoicesRepository,
    private readonly usage: UsageAggregator,
    private readonly poller: LeasePoller,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.invoices.useBeforeIssue(async (m, invoice, at) => {
      await this.recompute(m, invoice);
      return this.nextLateCheck(m, invoice.subscriptionId, at);
    });
    this.invoices.useDraftLines((m, invoice) => this.draftLines(m, invoice));
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
    this.poller.register<Invoice>({
      name: 'invoice-late-usage',
      ...LATE_CHECK_JOB,
      claim: (m, now, limit, leaseUntil) =>
        this.repository.claimDueLateChecks(m, now, limit, leaseUntil),
      run: (invoice) => this.db.transaction((m) => this.lateUsageCheck(m, invoice, new Date())),
    });
  }

  /**
   * Late usage of an ended subscription (docs/api.md §5.12 "an invoice of its own"): its last
   * issued invoice holds `lateCheckAt`; at that instant (`at`, on the customer's clock) the late
   * lines are computed as for any invoice, and when there are some they go on a draft of their
   * own, issued after the grace, which then holds the next look. Idempotent: the draft's period
   * starts at the last invoice's issue, so the unique (subscription, period start) keeps a look
   * run twice to one draft.
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
    const lines = await this.linesFor(m, closed, terms, at);
    if (lines.length === 0) {
      const next = await this.nextLateCheck(m, last.subscriptionId, at);
      await this.repository.update(m, last.id, { lateCheckAt: next });
      return;
    }
    const draft = await this.invoices.saveDraft(m, {
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
    if (draft.issueDueAt !== null && draft.issueDueAt <= new Date()) this.issueJob?.wake();
  }

  /**
   * When to look for late usage after an invoice issued at `at`: null unless its subscription has
   * ended; then a grace later, and after that at intervals that double with the time since the
   * end (a handful of looks), until no usage event can fall in its periods any more.
   */
  private async nextLateCheck(
    m: EntityManager,
    subscriptionId: string,
    at: Date,
  ): Promise<Date | null> {
    const s = await m.findOne(Subscription, { where: { id: subscriptionId } });
    if (!s || s.status !== 'terminated' || s.terminatedAt === null) return null;
    const grace = this.config.invoiceGraceSeconds * 1000;
    const sinceEnd = Math.max(0, at.getTime() - s.terminatedAt.getTime());
    const next = at.getTime() + Math.max(grace, sinceEnd);
    return next > s.terminatedAt.getTime() + USAGE_WINDOW_MS + grace ? null : new Date(next);
  }

  /** A test clock's advance: the looks for late usage due by `until`, each at its instant. */
  async lateChecksOnClock(m: EntityManager, testClockId: string, until: Date): Promise<void> {
    for (const invoice of await this.repository.dueLateChecksOnClock(m, testClockId, until)) {
      await this.lateUsageCheck(m, invoice, invoice.lateCheckAt!);
    }
  }

  /** When the next look for late usage on a test clock is due (ClockStep.nextDueAt), or null. */
  async nextLateCheckOnClock(m: EntityManager, testClockId: string): Promise<Date | null> {
    const [first] = await this.repository.dueLateChecksOnClock(
      m,
      testClockId,
      new Date(8.64e15),
      1,
    );
    return first ? first.lateCheckAt : null;
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
    const terms = await this.termsOf(m, closed.planId);
    const customer = await this.customerOf(m, closed.customerId);
    const lines = await this.linesFor(m, closed, terms, closed.billedEnd, existing?.id);
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
    const invoice = await this.invoices.saveDraft(m, draft);
    if (invoice.issueDueAt !== null && invoice.issueDueAt <= new Date()) this.issueJob?.wake();
    return invoice;
  }

  /**
   * The invoice of the current period as it would be issued at its end with the usage stored now
   * (docs/api.md §5.12 "Preview equals invoice"): the same `linesFor` as the real one.
   */
  async upcoming(m: EntityManager, closed: ClosedPeriod): Promise<InvoiceResponse> {
    const terms = await this.termsOf(m, closed.planId);
    const lines = await this.linesFor(m, closed, terms, closed.billedEnd);
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
  private async recompute(m: EntityManager, invoice: Invoice): Promise<void> {
    await this.invoices.saveDraft(m, {
      tenant: { organizationId: invoice.organizationId, livemode: invoice.livemode },
      customerId: invoice.customerId,
      subscriptionId: invoice.subscriptionId,
      planId: invoice.planId,
      currency: invoice.currency,
      periodStart: invoice.periodStart,
      periodEnd: invoice.periodEnd,
      tax: { behavior: invoice.taxBehavior, rate: invoice.taxRate },
      customer: invoice.customer,
      testClockId: invoice.testClockId,
      graceEndsAt: invoice.graceEndsAt,
      lines: await this.draftLines(m, invoice),
    });
  }

  /**
   * A draft's lines with the usage stored now, without writing (reads only): what a read of the
   * draft answers, and what `recompute` stores at its issue.
   */
  private async draftLines(m: EntityManager, invoice: Invoice): Promise<DraftLine[]> {
    const lines = await this.repository.lines(m, invoice.id);
    const usageLines = lines.filter((l) => l.type === 'usage');
    const metrics = await this.metricsOf(
      m,
      usageLines.map((l) => l.billableMetricId).filter((id): id is string => id !== null),
    );
    // A line is recomputed from its own copy of its price. One whose metric is not stored (an
    // invoice written without one, as the suites' factory does) keeps what it holds.
    const recomputable = (l: InvoiceLine) =>
      l.priceId !== null && l.billableMetricId !== null && metrics.has(l.billableMetricId);
    const terms: Terms = {
      currency: invoice.currency,
      tax: { behavior: invoice.taxBehavior, rate: invoice.taxRate },
      fixedFee: null,
      prices: usageLines.filter(recomputable).map(appliedOf),
    };
    const closed: ClosedPeriod = {
      tenant: { organizationId: invoice.organizationId, livemode: invoice.livemode },
      subscriptionId: invoice.subscriptionId,
      customerId: invoice.customerId,
      planId: invoice.planId,
      period: { start: invoice.periodStart, end: invoice.periodEnd },
      billedEnd: invoice.periodEnd,
    };
    const computed = await this.linesFor(m, closed, terms, invoice.periodEnd, invoice.id);
    const byPrice = new Map(
      computed.filter((l) => l.type === 'usage').map((l) => [l.priceId, l] as const),
    );
    const fee = lines.filter((l) => l.type === 'fixedFee').map(withoutStorage);
    const usage = usageLines.map((l) =>
      recomputable(l) ? (byPrice.get(l.priceId) ?? withoutStorage(l)) : withoutStorage(l),
    );
    const late = computed.filter((l) => l.type === 'lateUsage');
    return [...fee, ...usage, ...late];
  }

  /**
   * Every line of a period's invoice, in order (docs/api.md §5.12): the fixed fee (prorated to
   * [period.start, billedEnd)), one usage line per price in the plan's order, then the lateUsage
   * lines of earlier periods, oldest first. `excludeInvoiceId`: the draft being recomputed.
   */
  private async linesFor(
    m: EntityManager,
    closed: ClosedPeriod,
    terms: Terms,
    billedEnd: Date,
    excludeInvoiceId?: string,
  ): Promise<DraftLine[]> {
    const { start } = closed.period;
    const lines: DraftLine[] = [];
    if (terms.fixedFee) {
      lines.push({
        type: 'fixedFee',
        description: terms.fixedFee.description,
        priceId: null,
        billableMetricId: null,
        model: null,
        priceProperties: null,
        quantity: null,
        amount: fixedFeeLineAmount(
          terms.fixedFee.amount,
          closed.period,
          { start, end: billedEnd },
          terms.currency,
        ),
        periodStart: start,
        periodEnd: billedEnd,
      });
    }
    const metrics = await this.metricsOf(
      m,
      terms.prices.map((p) => p.billableMetricId),
    );
    for (const price of terms.prices) {
      const { quantity, amount } = await this.charge(m, closed, price, metrics, start, billedEnd);
      lines.push({
        type: 'usage',
        description: price.description,
        priceId: price.priceId,
        billableMetricId: price.billableMetricId,
        model: price.model,
        priceProperties: price.properties,
        quantity,
        amount: lineAmount(amount, terms.currency),
        periodStart: start,
        periodEnd: billedEnd,
      });
    }
    lines.push(...(await this.lateLines(m, closed, terms.currency, start, excludeInvoiceId)));
    return lines;
  }

  /**
   * Late usage (docs/api.md §5.12): for each earlier issued invoice of the subscription and each
   * price it applied, the charge for all of that period's usage now (with the price as that
   * invoice applied it) less every amount billed for that period and price so far.
   */
  private async lateLines(
    m: EntityManager,
    closed: ClosedPeriod,
    currency: string,
    before: Date,
    excludeInvoiceId?: string,
  ): Promise<DraftLine[]> {
    const earlier = (await this.repository.ofSubscription(m, closed.subscriptionId)).filter(
      (i) => i.periodStart < before && i.status !== 'draft' && i.id !== excludeInvoiceId,
    );
    if (earlier.length === 0) return [];
    const all = await this.repository.linesOf(
      m,
      (await this.repository.ofSubscription(m, closed.subscriptionId))
        .filter((i) => i.id !== excludeInvoiceId && i.status !== 'void')
        .map((i) => i.id),
    );
    const billed = [...all.values()].flat();
    const metrics = await this.metricsOf(
      m,
      billed.filter((l) => l.billableMetricId).map((l) => l.billableMetricId as string),
    );
    const out: DraftLine[] = [];
    for (const invoice of earlier.filter((i) => i.status !== 'void')) {
      for (const line of all.get(invoice.id) ?? []) {
        if (line.type !== 'usage' || line.priceId === null) continue;
        const same = billed.filter(
          (l) =>
            l.priceId === line.priceId &&
            l.periodStart.getTime() === line.periodStart.getTime() &&
            l.type !== 'fixedFee',
        );
        const price = appliedOf(line);
        const now = await this.charge(m, closed, price, metrics, line.periodStart, line.periodEnd);
        const amount = new Decimal(lineAmount(now.amount, currency)).minus(
          same.reduce((sum, l) => sum.plus(l.amount), new Decimal(0)),
        );
        const quantity = new Decimal(now.quantity).minus(
          same.reduce((sum, l) => sum.plus(l.quantity ?? '0'), new Decimal(0)),
        );
        if (amount.isZero() && quantity.isZero()) continue;
        out.push({
          type: 'lateUsage',
          description: line.description,
          priceId: line.priceId,
          billableMetricId: line.billableMetricId,
          model: line.model,
          priceProperties: line.priceProperties,
          quantity: quantity.toFixed(),
          amount: lineAmount(amount, currency),
          periodStart: line.periodStart,
          periodEnd: line.periodEnd,
        });
      }
    }
    return out;
  }

  /** A price's quantity over [from, to) and its exact charge. */
  private async charge(
    m: EntityManager,
    closed: ClosedPeriod,
    price: AppliedPrice,
    metrics: Map<string, BillableMetric>,
    from: Date,
    to: Date,
  ): Promise<{ quantity: string; amount: Decimal }> {
    const metric = metrics.get(price.billableMetricId);
    if (!metric) throw new Error(`billable metric ${price.billableMetricId} is missing`);
    const query = { customerId: closed.customerId, metric, from, to };
    const quantity = await this.usage.aggregate(m, closed.tenant, query);
    const charged = { model: price.model, properties: price.properties } as ChargedPrice;
    const dynamic =
      price.model === 'dynamic' ? await this.usage.dynamic(m, closed.tenant, query) : undefined;
    return { quantity, amount: chargeFor(charged, { quantity, dynamic }) };
  }

  private async metricsOf(m: EntityManager, ids: string[]): Promise<Map<string, BillableMetric>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows = await m.find(BillableMetric, { where: { id: In(unique) } });
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** The plan's terms and prices in the plan's order, each copied as the invoice applies it. */
  private async termsOf(m: EntityManager, planId: string): Promise<Terms> {
    const plan = await m.findOneOrFail(Plan, { where: { id: planId } });
    const prices = await m.find(Price, { where: { planId }, order: { planPosition: 'ASC' } });
    const fixedFee = plan.fixedFee;
    return {
      currency: plan.currency,
      tax: { behavior: plan.taxBehavior, rate: plan.taxRate },
      fixedFee:
        fixedFee === null ? null : { description: plan.invoiceDisplayName, amount: fixedFee },
      prices: prices
        .filter((p) => p.deletedAt === null)
        .map((p) => ({
          priceId: p.id,
          billableMetricId: p.billableMetricId,
          description: p.invoiceDisplayName,
          model: p.model,
          properties: p.properties,
        })),
    };
  }

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

function appliedOf(line: InvoiceLine): AppliedPrice {
  return {
    priceId: line.priceId as string,
    billableMetricId: line.billableMetricId as string,
    description: line.description,
    model: line.model as string,
    properties: line.priceProperties as object,
  };
}

function withoutStorage(line: InvoiceLine): DraftLine {
  const { id: _id, invoiceId: _invoiceId, position: _position, ...rest } = line;
  return rest;
}
