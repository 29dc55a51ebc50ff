import PDFDocument from 'pdfkit';
import type { InvoiceResponse } from './dto/invoice.response';
import type { BilledCustomer } from './entities/invoice.entity';

/** What the document shows beyond the invoice itself. */
export interface InvoiceDocument {
  organizationName: string;
  customer: BilledCustomer;
  invoice: InvoiceResponse;
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '');
const instant = (iso: string) => iso.replace('T', ' ').replace(/:00\.000Z$|\.\d{3}Z$/, ' UTC');

const LINE_KINDS: Record<string, string> = {
  fixedFee: 'Fixed fee',
  usage: 'Usage',
  lateUsage: 'Late usage',
};

/**
 * The invoice as the document a merchant sends (docs/api.md §5.12), made with pdfkit: the
 * organization, the customer with address, the number (or DRAFT), the period, the issue date,
 * every line with its quantity and amount, the subtotal, tax and total with the currency. Text
 * only (the standard Helvetica font), so that `pdftotext` reads every word back.
 */
export function renderInvoicePdf(doc: InvoiceDocument): Promise<Buffer> {
  const { invoice, customer } = doc;
  const pdf = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `Invoice ${invoice.number ?? 'DRAFT'}`, Author: doc.organizationName },
  });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });

  pdf.font('Helvetica-Bold').fontSize(18).text(doc.organizationName);
  pdf.moveDown(0.5);
  pdf.fontSize(14).text(invoice.number ? `Invoice ${invoice.number}` : 'Invoice DRAFT');
  pdf.font('Helvetica').fontSize(10);
  pdf.text(`Status: ${invoice.status}`);
  pdf.text(`Issue date: ${invoice.issuedAt ? day(invoice.issuedAt) : 'not issued'}`);
  pdf.text(`Period: ${instant(invoice.periodStart)} to ${instant(invoice.periodEnd)}`);
  pdf.text(`Currency: ${invoice.currency}`);
  pdf.moveDown();

  pdf.font('Helvetica-Bold').text('Bill to');
  pdf.font('Helvetica').text(customer.name);
  pdf.text(customer.email);
  const a = customer.address;
  if (a) {
    for (const line of [a.line1, a.line2]) if (line) pdf.text(line);
    const cityLine = [a.city, a.state, a.postalCode].filter(Boolean).join(', ');
    if (cityLine) pdf.text(cityLine);
    pdf.text(a.country);
  }
  pdf.moveDown();

  const left = pdf.page.margins.left;
  const columns = { description: left, quantity: left + 250, amount: left + 360 };
  const row = (description: string, quantity: string, amount: string, bold = false) => {
    const y = pdf.y;
    pdf.font(bold ? 'Helvetica-Bold' : 'Helvetica');
    pdf.text(description, columns.description, y, { width: 240 });
    const after = pdf.y;
    pdf.text(quantity, columns.quantity, y, { width: 100, align: 'right' });
    pdf.text(amount, columns.amount, y, { width: 130, align: 'right' });
    pdf.x = left;
    pdf.y = Math.max(after, pdf.y);
  };
  row('Description', 'Quantity', `Amount (${invoice.currency})`, true);
  for (const line of invoice.lines) {
    const period = `${day(line.periodStart)} to ${day(line.periodEnd)}`;
    row(
      `${line.description} (${LINE_KINDS[line.type] ?? line.type}, ${period})`,
      line.quantity ?? '',
      line.amount,
    );
  }
  pdf.moveDown();
  row('Subtotal', '', `${invoice.subtotal} ${invoice.currency}`);
  const taxLabel = `Tax (${invoice.tax.rate}%, ${invoice.tax.behavior})`;
  row(taxLabel, '', `${invoice.tax.amount} ${invoice.currency}`);
  row('Total', '', `${invoice.total} ${invoice.currency}`, true);
  if (invoice.paidAt) row(`Paid on ${day(invoice.paidAt)}`, '', '');
  if (invoice.voidedAt) row(`Voided on ${day(invoice.voidedAt)}`, '', '');

  pdf.end();
  return done;
}
