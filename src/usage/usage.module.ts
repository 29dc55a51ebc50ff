import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { CustomersModule } from '../customers/customers.module';
import { UsageEvent } from './entities/usage-event.entity';
import { MetersController } from './meters.controller';
import { MetersService } from './meters.service';
import { UsageAggregator } from './usage-aggregator';
import { UsageEventsController } from './usage-events.controller';
import { UsageEventsRepository } from './usage-events.repository';
import { UsageEventsService } from './usage-events.service';

/**
 * Usage events and meters (docs/api.md §5.11). Exports UsageAggregator, the one code that counts
 * usage: the meter here and the invoices (docs/api.md §5.12) call it.
 */
@Module({
  imports: [TypeOrmModule.forFeature([UsageEvent]), CatalogModule, CustomersModule],
  controllers: [UsageEventsController, MetersController],
  providers: [UsageEventsRepository, UsageEventsService, MetersService, UsageAggregator],
  exports: [UsageAggregator],
})
export class UsageModule {}
