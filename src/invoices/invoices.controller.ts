import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Query,
  StreamableFile,
} from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ListResponse } from '../common/dto/list-query.dto';
import { Caller, CurrentCaller } from '../platform/caller';
import { ApiCommonResponses, ApiNotFound } from '../platform/api-docs';
import { Idempotent } from '../platform/idempotency/idempotent.decorator';
import { InvoiceListResponse, InvoiceResponse } from './dto/invoice.response';
import { ListInvoicesQueryDto } from './dto/list-invoices-query.dto';
import { PayInvoiceDto } from './dto/pay-invoice.dto';
import { ApiInvoiceTransition } from './invoices.api-docs';
import { InvoicesService } from './invoices.service';

/** Invoices (docs/api.md §5.12): made by the billing run; read, moved and printed here. */
@ApiTags('Invoices')
@ApiCommonResponses()
@Controller('v0/invoices')
export class InvoicesController {
  constructor(private readonly invoices: InvoicesService) {}

  /** List invoices, newest first. */
  @Get()
  @ApiOkResponse({ type: InvoiceListResponse })
  list(
    @CurrentCaller() caller: Caller,
    @Query() query: ListInvoicesQueryDto,
  ): Promise<ListResponse<InvoiceResponse>> {
    return this.invoices.list(caller.principal, query);
  }

  /** Retrieve an invoice with its lines. */
  @Get(':id')
  @ApiOkResponse({ type: InvoiceResponse })
  @ApiNotFound('invoice')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<InvoiceResponse> {
    return this.invoices.get(caller.principal, id);
  }

  /** The invoice as a PDF document (number or DRAFT, customer, lines, totals). */
  @Get(':id/pdf')
  @Header('Content-Type', 'application/pdf')
  // The PDF is the 200's content alone: ApiProduces would also move the error examples off
  // application/json, where every error of the API is documented.
  @ApiOkResponse({
    description: 'The invoice as a PDF document',
    content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiNotFound('invoice')
  async pdf(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<StreamableFile> {
    return new StreamableFile(await this.invoices.pdf(caller.principal, id), {
      type: 'application/pdf',
    });
  }

  /** Issue a draft now, with the usage stored now, instead of at the end of its grace. */
  @Post(':id/finalize')
  @HttpCode(200)
  @Idempotent()
  @ApiOkResponse({ type: InvoiceResponse })
  @ApiNotFound('invoice')
  @ApiInvoiceTransition('issued')
  finalize(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<InvoiceResponse> {
    return this.invoices.finalize(caller, id);
  }

  /** Mark an issued invoice paid. */
  @Post(':id/pay')
  @HttpCode(200)
  @Idempotent()
  @ApiOkResponse({ type: InvoiceResponse })
  @ApiNotFound('invoice')
  @ApiInvoiceTransition('paid')
  pay(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() body: PayInvoiceDto,
  ): Promise<InvoiceResponse> {
    return this.invoices.pay(caller, id, body);
  }

  /** Void an issued invoice: it stays, numbered, but is no longer owed. */
  @Post(':id/void')
  @HttpCode(200)
  @Idempotent()
  @ApiOkResponse({ type: InvoiceResponse })
  @ApiNotFound('invoice')
  @ApiInvoiceTransition('void')
  void(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<InvoiceResponse> {
    return this.invoices.void(caller, id);
  }
}
