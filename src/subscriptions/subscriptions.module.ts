import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CustomersModule } from '../customers/customers.module';
import { EventsModule } from '../events/events.module';
import { PlansModule } from '../plans/plans.module';
import { ClockAdvancer } from './clock-advancer';
import { Subscription } from './entities/subscription.entity';
import { SubscriptionLifecycle } from './subscription-lifecycle';
import { SubscriptionsController, TestClockAdvanceController } from './subscriptions.controller';
import { SubscriptionsJob } from './subscriptions.job';
import { SubscriptionsRepository } from './subscriptions.repository';
import { SubscriptionsService } from './subscriptions.service';

/**
 * Subscriptions (docs/api.md §5.10), their billing periods and lifecycle, the real-time job and
 * a test clock's advance. Exports SubscriptionsService. Modules above (invoices) take part in
 * period closes and clock advances through the ports of billing-hooks.ts (PERIOD_CLOSER,
 * CLOCK_STEPS), re-exported by subscriptions.service.ts.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Subscription]), CustomersModule, PlansModule, EventsModule],
  controllers: [SubscriptionsController, TestClockAdvanceController],
  providers: [
    SubscriptionsRepository,
    SubscriptionLifecycle,
    SubscriptionsService,
    ClockAdvancer,
    SubscriptionsJob,
  ],
  exports: [SubscriptionsService],
})
export class SubscriptionsModule {}
