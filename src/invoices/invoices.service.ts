import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { NotFoundError } from '../common/errors';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { Tenant } from '../common/tenant';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import { Subscription } from '../subscriptions/entities/subscription.entity';
import { Actor, Caller, RequestRef, SYSTEM } from '../platform/caller';
import { EventsService } from '../events/events.service';
import { EventType } from '../events/event-types';
import { invoiceTotals } from './charging';
import { InvoiceResponse, toInvoiceResponse } from './dto/invoice.response';
import { ListInvoicesQueryDto } from './dto/list-invoices-query.dto';
import { PayInvoiceDto } from './dto/pay-invoice.dto';
import { BilledCustomer, Invoice, InvoiceStatus } from './entities/invoice.entity';
import { InvoiceLine } from './entities/invoice-line.entity';
import { renderInvoicePdf } from './invoice-pdf';
import { canMove } from './invoice-status';
import { InvalidStatusTransitionError } from './invoices.errors';
import { DraftLine, InvoiceLines } from './invoice-lines';
import { InvoicesRepository } from './invoices.repository';

/** A period's invoice as the billing run computed it: saved as a draft, or a draft recomputed. */
export interface DraftInvoice {
  tenant: Tenant;
  customerId: string;
  subscriptionId: string;
  planId: string;
  currency: string;
  periodStart: Date;
  periodEnd: Date;
  tax: { behavior: 'exclusive' | 'inclusive'; rate: string };
  customer: BilledCustomer;
  testClockId: string | null;
  /** periodEnd + INVOICE_GRACE_SECONDS, on the customer's clock. */
  graceEndsAt: Date;
  lines: DraftLine[];
}

/** Who moves an invoice: a request (finalize, pay, void) or the billing run (SYSTEM). */
interface Mover {
  principal: Tenant;
  actor: Actor;
  request: RequestRef | null;
}

/** How far back a usage event's timestamp may be (docs/api.md §5.11): no late usage after that. */
const USAGE_WINDOW_MS = 90 * 24 * 3600 * 1000;

/** Formats an invoice number: INV- and at least six digits. */
export const invoiceNumber = (n: number) => `INV-${String(n).padStart(6, '0')}`;

/**
 * Invoices (docs/api.md §5.12): stored drafts recomputed until issued, numbers given at issue,
 * the moves draft → issued → paid | void, and the document. InvoiceLines (invoice-lines.ts)
 * computes what a draft holds, the billing run (billing-run.ts) says when; this service stores
 * it, answers it current on every read, and moves it.
 */
@Injectable()
export class InvoicesService {
  constructor(
    private readonly db: Database,
    private readonly invoices: InvoicesRepository,
    private readonly events: EventsService,
    private readonly lines: InvoiceLines,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async get(tenant: Tenant, id: string): Promise<InvoiceResponse> {
    return this.db.read((m) => this.view(m, tenant, id));
  }

  async list(tenant: Tenant, query: ListInvoicesQueryDto): Promise<ListResponse<InvoiceResponse>> {
    return this.db.snapshot(async (m) => {
      const [rows, total] = await this.invoices.page(m, tenant, query, query);
      const lines = await this.invoices.linesOf(
        m,
        rows.map((i) => i.id),
      );
      const data: InvoiceResponse[] = [];
      for (const i of rows) data.push(await this.current(m, i, lines.get(i.id) ?? []));
      return toListResponse(data, total, query);
    });
  }

  /** Issues a draft now, with the usage stored now, instead of at the end of its grace. */
  finalize(caller: Caller, id: string): Promise<InvoiceResponse> {
    return this.move(caller, id, 'issued', async (m, invoice) => {
      const now = await this.invoices.customerNow(m, invoice.testClockId);
      await this.issueLocked(m, invoice, now, caller);
    });
  }

  pay(caller: Caller, id: string, dto: PayInvoiceDto): Promise<InvoiceResponse> {
    return this.move(caller, id, 'paid', async (m, invoice) => {
      const at = new Date();
      const now = await this.invoices.customerNow(m, invoice.testClockId);
      await this.invoices.update(m, invoice.id, {
        status: 'paid',
        paidAt: dto.paidAt ? new Date(dto.paidAt) : now,
        paymentReference: dto.reference ?? null,
        updatedAt: at,
      });
      await this.recordMove(m, caller, invoice.id, 'invoice.paid');
    });
  }

  void(caller: Caller, id: string): Promise<InvoiceResponse> {
    return this.move(caller, id, 'void', async (m, invoice) => {
      const at = new Date();
      await this.invoices.update(m, invoice.id, {
        status: 'void',
        voidedAt: await this.invoices.customerNow(m, invoice.testClockId),
        issueDueAt: null,
        updatedAt: at,
      });
      await this.recordMove(m, caller, invoice.id, 'invoice.voided');
    });
  }

  /** The invoice as a PDF document. */
  async pdf(tenant: Tenant, id: string): Promise<Buffer> {
    const document = await this.db.read(async (m) => {
      const invoice = await this.find(m, tenant, id);
      const lines = await this.invoices.lines(m, invoice.id);
      return {
        organizationName: await this.invoices.organizationName(m, invoice.organizationId),
        customer: invoice.customer,
        invoice: await this.current(m, invoice, lines),
      };
    });
    return renderInvoicePdf(document);
  }

  /**
   * Saves a period's draft in `m`'s transaction: a new invoice (with `invoice.created`), or the
   * draft of that period recomputed. An invoice already issued is left alone (late usage goes on a
   * later invoice). The unique index on (subscription, period start) refuses a second invoice
   * for one period, whichever instance makes it. Returns the stored invoice.
   */
  async saveDraft(m: EntityManager, draft: DraftInvoice): Promise<Invoice> {
    const existing = await this.invoices.findOfPeriod(m, draft.subscriptionId, draft.periodStart);
    const now = new Date();
    const totals = invoiceTotals(
      draft.lines.map((l) => l.amount),
      draft.tax,
      draft.currency,
    );
    const amounts = {
      subtotal: totals.subtotal,
      taxBehavior: draft.tax.behavior,
      taxRate: draft.tax.rate,
      taxAmount: totals.tax.amount,
      total: totals.total,
    };
    if (existing) {
      if (existing.status !== 'draft') return existing;
      const lines = this.linesOf(existing.id, draft.lines);
      const changes: Partial<Invoice> = {
        ...amounts,
        periodEnd: draft.periodEnd,
        customer: draft.customer,
        graceEndsAt: draft.graceEndsAt,
        updatedAt: now,
      };
      await this.invoices.replaceLines(m, existing.id, lines);
      await this.invoices.update(m, existing.id, changes);
      return { ...existing, ...changes };
    }
    const invoice: Invoice = {
      id: newId(ID_PREFIXES.invoice),
      organizationId: draft.tenant.organizationId,
      livemode: draft.tenant.livemode,
      customerId: draft.customerId,
      subscriptionId: draft.subscriptionId,
      planId: draft.planId,
      number: null,
      status: 'draft',
      currency: draft.currency,
      periodStart: draft.periodStart,
      periodEnd: draft.periodEnd,
      ...amounts,
      customer: draft.customer,
      testClockId: draft.testClockId,
      graceEndsAt: draft.graceEndsAt,
      issueDueAt: draft.testClockId === null ? draft.graceEndsAt : null,
      lateCheckAt: null,
      issuedAt: null,
      paidAt: null,
      voidedAt: null,
      paymentReference: null,
      createdAt: now,
      updatedAt: now,
    };
    const lines = this.linesOf(invoice.id, draft.lines);
    await this.invoices.insert(m, invoice, lines);
    await this.events.record(m, {
      principal: draft.tenant,
      type: 'invoice.created',
      object: toInvoiceResponse(invoice, lines),
      actor: SYSTEM,
      request: null,
    });
    return invoice;
  }

  /**
   * Issues a draft in `m`'s transaction (the billing run, at the end of its grace): recomputed
   * with the usage stored now, numbered, `invoice.issued`. `at` is the issue instant on the
   * customer's clock. The caller has locked the invoice (findOfPeriod, find with lock).
   */
  async issueLocked(m: EntityManager, invoice: Invoice, at: Date, mover: Mover): Promise<void> {
    await this.recompute(m, invoice);
    const lateCheckAt = await this.nextLateCheck(m, invoice.subscriptionId, at);
    const number = invoiceNumber(await this.invoices.nextNumber(m, mover.principal));
    await this.invoices.update(m, invoice.id, {
      status: 'issued',
      number,
      issuedAt: at,
      issueDueAt: null,
      lateCheckAt,
      updatedAt: new Date(),
    });
    await this.recordMove(m, mover, invoice.id, 'invoice.issued');
  }

  /**
   * When to look for late usage after an invoice issued at `at`: null unless its subscription has
   * ended; then a grace later, and after that at intervals that double with the time since the
   * end (a handful of looks), until no usage event can fall in its periods any more.
   */
  async nextLateCheck(m: EntityManager, subscriptionId: string, at: Date): Promise<Date | null> {
    const s = await m.findOne(Subscription, { where: { id: subscriptionId } });
    if (!s || s.status !== 'terminated' || s.terminatedAt === null) return null;
    const grace = this.config.invoiceGraceSeconds * 1000;
    const sinceEnd = Math.max(0, at.getTime() - s.terminatedAt.getTime());
    const next = at.getTime() + Math.max(grace, sinceEnd);
    return next > s.terminatedAt.getTime() + USAGE_WINDOW_MS + grace ? null : new Date(next);
  }

  /** A stored draft recomputed with the usage stored now (before its issue). */
  private async recompute(m: EntityManager, invoice: Invoice): Promise<void> {
    await this.saveDraft(m, {
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
      lines: await this.lines.draftLines(m, invoice),
    });
  }

  /** Issues the draft `id` (already claimed by the billing run) when it is still a draft. */
  async issueDue(m: EntityManager, tenant: Tenant, id: string, at: Date): Promise<boolean> {
    const invoice = await this.invoices.find(m, tenant, id, true);
    if (!invoice || invoice.status !== 'draft') return false;
    await this.issueLocked(m, invoice, at, { principal: tenant, actor: SYSTEM, request: null });
    return true;
  }

  /** The totals of computed lines under `terms` (subtotal, tax, total), for the upcoming invoice. */
  totalsOf(
    lines: DraftLine[],
    terms: { currency: string; tax: { behavior: 'exclusive' | 'inclusive'; rate: string } },
  ) {
    const totals = invoiceTotals(
      lines.map((l) => l.amount),
      terms.tax,
      terms.currency,
    );
    return {
      subtotal: totals.subtotal,
      taxBehavior: terms.tax.behavior,
      taxRate: terms.tax.rate,
      taxAmount: totals.tax.amount,
      total: totals.total,
    };
  }

  private linesOf(invoiceId: string, lines: DraftLine[]): InvoiceLine[] {
    return lines.map((line, position) => ({
      id: newId(ID_PREFIXES.invoiceLine),
      invoiceId,
      position,
      ...line,
    }));
  }

  private async move(
    caller: Caller,
    id: string,
    to: InvoiceStatus,
    write: (m: EntityManager, invoice: Invoice) => Promise<void>,
  ): Promise<InvoiceResponse> {
    if (!isIdOf(ID_PREFIXES.invoice, id)) throw new NotFoundError('invoice', id);
    return this.db.transaction(async (m) => {
      const invoice = await this.invoices.find(m, caller.principal, id, true);
      if (!invoice) throw new NotFoundError('invoice', id);
      if (!canMove(invoice.status, to)) {
        throw new InvalidStatusTransitionError(invoice.id, invoice.status, to);
      }
      await write(m, invoice);
      return this.view(m, caller.principal, id);
    }, caller.commit);
  }

  private async recordMove(m: EntityManager, mover: Mover, id: string, type: EventType) {
    const object = await this.view(m, mover.principal, id);
    await this.events.record(m, { ...mover, type, object });
  }

  private async find(m: EntityManager, tenant: Tenant, id: string): Promise<Invoice> {
    const invoice = isIdOf(ID_PREFIXES.invoice, id)
      ? await this.invoices.find(m, tenant, id)
      : null;
    if (!invoice) throw new NotFoundError('invoice', id);
    return invoice;
  }

  private async view(m: EntityManager, tenant: Tenant, id: string): Promise<InvoiceResponse> {
    const invoice = await this.find(m, tenant, id);
    return this.current(m, invoice, await this.invoices.lines(m, invoice.id));
  }

  /**
   * An invoice as a read answers it: an issued one (paid, void) as stored; a draft recomputed with
   * the usage stored now, without writing (docs/decisions.md). A line keeps its stored id while it
   * is the same line (type, price, period) at the same place.
   */
  private async current(
    m: EntityManager,
    invoice: Invoice,
    stored: InvoiceLine[],
  ): Promise<InvoiceResponse> {
    if (invoice.status !== 'draft') return toInvoiceResponse(invoice, stored);
    const computed = await this.lines.draftLines(m, invoice);
    const tax = { behavior: invoice.taxBehavior, rate: invoice.taxRate };
    const amounts = this.totalsOf(computed, { currency: invoice.currency, tax });
    const lines = computed.map((line, position): InvoiceLine => {
      const was = stored.find((l) => l.position === position);
      const same =
        was !== undefined &&
        was.type === line.type &&
        was.priceId === line.priceId &&
        was.periodStart.getTime() === line.periodStart.getTime();
      return {
        id: same ? was.id : newId(ID_PREFIXES.invoiceLine),
        invoiceId: invoice.id,
        position,
        ...line,
      };
    });
    return toInvoiceResponse({ ...invoice, ...amounts }, lines);
  }
}
