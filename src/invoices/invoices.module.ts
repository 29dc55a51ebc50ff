import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { Invoice } from './entities/invoice.entity';
import { InvoiceLine } from './entities/invoice-line.entity';
import { InvoiceNumber } from './entities/invoice-number.entity';
import { InvoicesController } from './invoices.controller';
import { InvoicesRepository } from './invoices.repository';
import { InvoicesService } from './invoices.service';

/** Invoices (docs/api.md §5.12): storage, numbers, status moves, the PDF, and the billing run. */
@Module({
  imports: [TypeOrmModule.forFeature([Invoice, InvoiceLine, InvoiceNumber]), EventsModule],
  controllers: [InvoicesController],
  providers: [InvoicesRepository, InvoicesService],
  exports: [InvoicesService],
})
export class InvoicesModule {}
