import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { BillableMetric } from '../catalog/entities/billable-metric.entity';
import { Tenant } from '../common/tenant';
import { Plan } from '../plans/entities/plan.entity';
import { Price } from '../plans/entities/price.entity';
// The one aggregation of usage, which the usage module exports for the invoices (docs/api.md §5.11).
// eslint-disable-next-line no-restricted-imports
import { UsageAggregator } from '../usage/usage-aggregator';
import { ChargedPrice, Decimal, chargeFor, fixedFeeLineAmount, lineAmount } from './charging';
import { Invoice } from './entities/invoice.entity';
import { InvoiceLine, InvoiceLineType } from './entities/invoice-line.entity';
import { InvoicesRepository } from './invoices.repository';

/** One computed line of a draft: what InvoiceLines answers, and what a draft stores. */
export interface DraftLine {
  type: InvoiceLineType;
  description: string;
  priceId: string | null;
  billableMetricId: string | null;
  model: string | null;
  priceProperties: object | null;
  quantity: string | null;
  amount: string;
  periodStart: Date;
  periodEnd: Date;
}

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
export interface Terms {
  currency: string;
  tax: { behavior: 'exclusive' | 'inclusive'; rate: string };
  fixedFee: { description: string; amount: string } | null;
  prices: AppliedPrice[];
}

/**
 * What an invoice holds (docs/api.md §5.12): every invoice's lines come from `linesFor`, whether
 * a period's draft at its close, the same draft recomputed at a read or at its issue
 * (`draftLines`), an ended subscription's late usage, or the upcoming invoice. Reads only.
 */
@Injectable()
export class InvoiceLines {
  constructor(
    private readonly repository: InvoicesRepository,
    private readonly usage: UsageAggregator,
  ) {}

  /**
   * A draft's lines with the usage stored now, without writing (reads only): what a read of the
   * draft answers, and what the billing run stores at its issue.
   */
  async draftLines(m: EntityManager, invoice: Invoice): Promise<DraftLine[]> {
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
  async linesFor(
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
  async termsOf(m: EntityManager, planId: string): Promise<Terms> {
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
