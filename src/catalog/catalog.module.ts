import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BillableMetricsController } from './billable-metrics.controller';
import { BillableMetricsService } from './billable-metrics.service';
import { CatalogService } from './catalog.service';
import { BillableMetric } from './entities/billable-metric.entity';
import { Product } from './entities/product.entity';
import { ProductsController } from './products.controller';
import { ProductsService } from './products.service';

/**
 * Products and billable metrics (API.md sections 5.1 and 5.2). Other modules import it for
 * CatalogService, which looks up an organization's products and billable metrics.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Product, BillableMetric])],
  controllers: [ProductsController, BillableMetricsController],
  providers: [CatalogService, ProductsService, BillableMetricsService],
  exports: [TypeOrmModule, CatalogService],
})
export class CatalogModule {}
