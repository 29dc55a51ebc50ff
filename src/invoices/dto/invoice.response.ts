import { ApiProperty } from '@nestjs/swagger';
import { PaginationResponse } from '../../common/dto/pagination.response';
import { INVOICE_STATUSES, Invoice, InvoiceStatus } from '../entities/invoice.entity';
import { INVOICE_LINE_TYPES, InvoiceLine, InvoiceLineType } from '../entities/invoice-line.entity';

const MONEY = { example: '12.30', description: 'With exactly the currency’s minor-unit digits.' };

export class InvoiceLineResponse {
  /** Null on an upcoming invoice (a preview). */
  @ApiProperty({ type: String, nullable: true, example: 'il_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  id: string | null;

  /** `fixedFee`, `usage`, or `lateUsage` (usage of an earlier period that arrived after its invoice). */
  @ApiProperty({ enum: INVOICE_LINE_TYPES })
  type: InvoiceLineType;

  /** The price's invoiceDisplayName (the plan's for the fixed fee). */
  @ApiProperty({ example: 'API calls' })
  description: string;

  @ApiProperty({ type: String, nullable: true, example: 'price_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  priceId: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'bm_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  billableMetricId: string | null;

  /** The price model the line applied; null for the fixed fee. */
  @ApiProperty({ type: String, nullable: true, example: 'graduated' })
  model: string | null;

  /** The aggregation over the line's period, exactly (a lateUsage line: its change); null for the fixed fee. */
  @ApiProperty({ type: String, nullable: true, example: '1200' })
  quantity: string | null;

  @ApiProperty(MONEY)
  amount: string;

  @ApiProperty({ example: '2026-01-01T00:00:00.000Z' })
  periodStart: string;

  @ApiProperty({ example: '2026-02-01T00:00:00.000Z' })
  periodEnd: string;
}

export class InvoiceTaxResponse {
  @ApiProperty({ enum: ['exclusive', 'inclusive'] })
  behavior: 'exclusive' | 'inclusive';

  /** Percent, as the plan's tax.rate. */
  @ApiProperty({ example: '20' })
  rate: string;

  @ApiProperty(MONEY)
  amount: string;
}

export class InvoiceResponse {
  /** Null on an upcoming invoice (a preview). */
  @ApiProperty({ type: String, nullable: true, example: 'inv_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  id: string | null;

  @ApiProperty({ enum: ['invoice'] })
  object: 'invoice';

  @ApiProperty({ example: false })
  livemode: boolean;

  @ApiProperty({ example: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  merchantId: string;

  @ApiProperty({ example: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  customerId: string;

  @ApiProperty({ example: 'sub_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  subscriptionId: string;

  @ApiProperty({ example: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  planId: string;

  /** `INV-000001`…, consecutive per organization and mode; null until issued. */
  @ApiProperty({ type: String, nullable: true, example: 'INV-000001' })
  number: string | null;

  /** `draft`, `issued`, `paid`, `void`; `upcoming` for a preview. */
  @ApiProperty({ enum: [...INVOICE_STATUSES, 'upcoming'] })
  status: InvoiceStatus | 'upcoming';

  @ApiProperty({ example: 'USD' })
  currency: string;

  @ApiProperty({ example: '2026-01-01T00:00:00.000Z' })
  periodStart: string;

  @ApiProperty({ example: '2026-02-01T00:00:00.000Z' })
  periodEnd: string;

  @ApiProperty({ type: [InvoiceLineResponse] })
  lines: InvoiceLineResponse[];

  /** The sum of the lines. */
  @ApiProperty(MONEY)
  subtotal: string;

  @ApiProperty({ type: InvoiceTaxResponse })
  tax: InvoiceTaxResponse;

  @ApiProperty(MONEY)
  total: string;

  @ApiProperty({ type: String, nullable: true, example: '2026-02-01T01:00:00.000Z' })
  issuedAt: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  paidAt: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  voidedAt: string | null;

  /** The reference given to `pay`, such as a bank transfer's id. */
  @ApiProperty({ type: String, nullable: true, example: null })
  paymentReference: string | null;

  /** Null on an upcoming invoice. */
  @ApiProperty({ type: String, nullable: true, example: '2026-02-01T00:00:01.000Z' })
  createdAt: string | null;

  @ApiProperty({ type: String, nullable: true, example: '2026-02-01T00:00:01.000Z' })
  updatedAt: string | null;
}

export class InvoiceListResponse {
  @ApiProperty({ type: [InvoiceResponse] })
  data: InvoiceResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toInvoiceLineResponse(line: InvoiceLine): InvoiceLineResponse {
  return {
    id: line.id,
    type: line.type,
    description: line.description,
    priceId: line.priceId,
    billableMetricId: line.billableMetricId,
    model: line.model,
    quantity: line.quantity,
    amount: line.amount,
    periodStart: line.periodStart.toISOString(),
    periodEnd: line.periodEnd.toISOString(),
  };
}

/** The API view of an invoice and its lines (docs/api.md §5.12). */
export function toInvoiceResponse(invoice: Invoice, lines: InvoiceLine[]): InvoiceResponse {
  return {
    id: invoice.id,
    object: 'invoice',
    livemode: invoice.livemode,
    merchantId: invoice.organizationId,
    customerId: invoice.customerId,
    subscriptionId: invoice.subscriptionId,
    planId: invoice.planId,
    number: invoice.number,
    status: invoice.status,
    currency: invoice.currency,
    periodStart: invoice.periodStart.toISOString(),
    periodEnd: invoice.periodEnd.toISOString(),
    lines: lines.map(toInvoiceLineResponse),
    subtotal: invoice.subtotal,
    tax: { behavior: invoice.taxBehavior, rate: invoice.taxRate, amount: invoice.taxAmount },
    total: invoice.total,
    issuedAt: iso(invoice.issuedAt),
    paidAt: iso(invoice.paidAt),
    voidedAt: iso(invoice.voidedAt),
    paymentReference: invoice.paymentReference,
    createdAt: invoice.createdAt.toISOString(),
    updatedAt: invoice.updatedAt.toISOString(),
  };
}
