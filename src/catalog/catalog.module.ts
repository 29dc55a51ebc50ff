import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BillableMetric } from './entities/billable-metric.entity';
import { Product } from './entities/product.entity';

/** Products and billable metrics (API.md sections 5.1 and 5.2). */
@Module({
  imports: [TypeOrmModule.forFeature([Product, BillableMetric])],
  exports: [TypeOrmModule],
})
export class CatalogModule {}
