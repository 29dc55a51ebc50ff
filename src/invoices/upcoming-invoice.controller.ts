import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../platform/caller';
import { ApiCommonResponses, ApiNotFound } from '../platform/api-docs';
import { BillingRun } from './billing-run';
import { InvoiceResponse } from './dto/invoice.response';
import { ApiNoUpcomingInvoice } from './invoices.api-docs';

/** The upcoming invoice of a subscription (docs/api.md §5.12), computed as the real one is. */
@ApiTags('Invoices')
@ApiCommonResponses()
@Controller('v0/subscriptions')
export class UpcomingInvoiceController {
  constructor(private readonly billing: BillingRun) {}

  /**
   * The invoice of the current period as it would be issued at its end with the usage stored now
   * (`id` and `number` null, status `upcoming`).
   */
  @Get(':id/upcomingInvoice')
  @ApiOkResponse({ type: InvoiceResponse })
  @ApiNotFound('subscription')
  @ApiNoUpcomingInvoice()
  upcoming(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<InvoiceResponse> {
    return this.billing.upcomingFor(caller.principal, id);
  }
}
