import { INVOICE_STATUSES, InvoiceStatus } from './entities/invoice.entity';
import { canMove } from './invoice-status';

describe('invoice status moves', () => {
  const allowed = new Set(['draft>issued', 'issued>paid', 'issued>void']);
  const pairs = INVOICE_STATUSES.flatMap((from) =>
    INVOICE_STATUSES.map((to) => [from, to] as [InvoiceStatus, InvoiceStatus]),
  );
  it.each(pairs)('%s → %s', (from, to) => {
    expect(canMove(from, to)).toBe(allowed.has(`${from}>${to}`));
  });
});
