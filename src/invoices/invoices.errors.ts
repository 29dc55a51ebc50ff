import { ConflictError } from '../common/errors';
import type { InvoiceStatus } from './entities/invoice.entity';

/** 409: the move asked is not one of draft → issued → paid | void. */
export class InvalidStatusTransitionError extends ConflictError {
  constructor(id: string, from: InvoiceStatus, to: InvoiceStatus) {
    super(
      'INVALID_STATUS_TRANSITION',
      `Invoice ${id} is ${from} and cannot become ${to}: an invoice goes draft → issued → paid or void`,
    );
  }
}

/** 409: a terminated subscription has no upcoming invoice. */
export class NoUpcomingInvoiceError extends ConflictError {
  constructor(id: string) {
    super(
      'SUBSCRIPTION_TERMINATED',
      `Subscription ${id} is terminated: it has no upcoming invoice; its invoices are listed at GET /v0/invoices?subscriptionId=${id}`,
    );
  }
}
