import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PlanCount } from './entities/plan-count.entity';
import { Plan } from './entities/plan.entity';
import { Price } from './entities/price.entity';
import { PlansController } from './plans.controller';
import { PlansService } from './plans.service';
import { PricesController } from './prices.controller';
import { PricesService } from './prices.service';

/** Plans and their prices (API.md sections 5.3 and 5.4): Plan one-to-many Price. */
@Module({
  imports: [TypeOrmModule.forFeature([Plan, PlanCount, Price])],
  controllers: [PlansController, PricesController],
  providers: [PlansService, PricesService],
})
export class PlansModule {}
