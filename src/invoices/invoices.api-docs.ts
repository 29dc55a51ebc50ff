import { ApiErrorResponse } from '../platform/api-docs';
import { INVOICE_STATUSES, InvoiceStatus } from './entities/invoice.entity';
import { canMove } from './invoice-status';
import { InvalidStatusTransitionError, NoUpcomingInvoiceError } from './invoices.errors';

/** The error examples of invoices for the OpenAPI document. */

const INV = 'inv_01JD3Y2Q6J8C4N1V9W5X7Z0INV';
const SUB = 'sub_01JD3Y2Q6J8C4N1V9W5X7Z0SUB';

/** 409 of a move to `to`: one example per status that cannot become it. */
export const ApiInvoiceTransition = (to: InvoiceStatus): MethodDecorator =>
  ApiErrorResponse(
    'conflict, INVALID_STATUS_TRANSITION: an invoice goes draft → issued → paid | void',
    ...INVOICE_STATUSES.filter((from) => !canMove(from, to)).map(
      (status): [string, InvalidStatusTransitionError] => [
        `The invoice is ${status}`,
        new InvalidStatusTransitionError(INV, status, to),
      ],
    ),
  );

/** 409 of the upcoming invoice of a terminated subscription. */
export const ApiNoUpcomingInvoice = (): MethodDecorator =>
  ApiErrorResponse('conflict, SUBSCRIPTION_TERMINATED: no upcoming invoice', [
    'The subscription is terminated',
    new NoUpcomingInvoiceError(SUB),
  ]);
