import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { CatalogModule } from '../catalog/catalog.module';
import { PlanCount } from './entities/plan-count.entity';
import { Plan } from './entities/plan.entity';
import { Price } from './entities/price.entity';
import { PlanPricesService } from './plan-prices.service';
import { PlansController } from './plans.controller';
import { PlansRepository } from './plans.repository';
import { PlansService } from './plans.service';
import { PricesController } from './prices.controller';
import { PricesRepository } from './prices.repository';
import { PricesService } from './prices.service';

/**
 * Plans and their prices (docs/api.md §5.3 and §5.4): Plan one-to-many Price. Asks the catalog,
 * through CatalogService, whether a product or a billable metric exists. Exports PlansService:
 * subscriptions find their plan (`forSubscription`) and keep its freeze (`countSubscriptions`).
 */
@Module({
  imports: [TypeOrmModule.forFeature([Plan, PlanCount, Price]), CatalogModule, EventsModule],
  controllers: [PlansController, PricesController],
  providers: [PlansRepository, PricesRepository, PlansService, PlanPricesService, PricesService],
  exports: [PlansService],
})
export class PlansModule {}
