import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { BillableMetricsController } from './billable-metrics.controller';
import { BillableMetricsRepository } from './billable-metrics.repository';
import { BillableMetricsService } from './billable-metrics.service';
import { CatalogService } from './catalog.service';
import { BillableMetric } from './entities/billable-metric.entity';
import { Product } from './entities/product.entity';
import { ProductsController } from './products.controller';
import { ProductsRepository } from './products.repository';
import { ProductsService } from './products.service';

/**
 * Products and billable metrics (docs/api.md §5.1 and §5.2). Other modules import it for
 * CatalogService, its one exported provider: whether a product or a billable metric exists.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Product, BillableMetric]), EventsModule],
  controllers: [ProductsController, BillableMetricsController],
  providers: [
    ProductsRepository,
    BillableMetricsRepository,
    CatalogService,
    ProductsService,
    BillableMetricsService,
  ],
  exports: [CatalogService],
})
export class CatalogModule {}
