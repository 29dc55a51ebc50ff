import type { InvoiceStatus } from './entities/invoice.entity';

/** The moves of an invoice's status (docs/api.md §5.12); any other is INVALID_STATUS_TRANSITION. */
const MOVES: Record<InvoiceStatus, readonly InvoiceStatus[]> = {
  draft: ['issued'],
  issued: ['paid', 'void'],
  paid: [],
  void: [],
};

export function canMove(from: InvoiceStatus, to: InvoiceStatus): boolean {
  return MOVES[from].includes(to);
}
