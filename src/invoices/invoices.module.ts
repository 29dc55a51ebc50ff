import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { UsageModule } from '../usage/usage.module';
import { BillingRun } from './billing-run';
import { Invoice } from './entities/invoice.entity';
import { InvoiceLine } from './entities/invoice-line.entity';
import { InvoiceLines } from './invoice-lines';
import { InvoiceNumber } from './entities/invoice-number.entity';
import { InvoicesController } from './invoices.controller';
import { UpcomingInvoiceController } from './upcoming-invoice.controller';
import { InvoicesRepository } from './invoices.repository';
import { InvoicesService } from './invoices.service';
import { LateUsageChecks } from './late-usage-checks';

/** Invoices (docs/api.md §5.12): storage, numbers, status moves, the PDF, and the billing run. */
@Module({
  imports: [
    TypeOrmModule.forFeature([Invoice, InvoiceLine, InvoiceNumber]),
    EventsModule,
    UsageModule,
  ],
  controllers: [InvoicesController, UpcomingInvoiceController],
  providers: [InvoicesRepository, InvoicesService, InvoiceLines, BillingRun, LateUsageChecks],
  exports: [InvoicesService, BillingRun, LateUsageChecks],
})
export class InvoicesModule {}
