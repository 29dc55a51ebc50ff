import { Global, Injectable, Module } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Subscription } from '../subscriptions/entities/subscription.entity';
import {
  AdvancingClock,
  CLOCK_STEPS,
  ClockStep,
  ClosedPeriodSubscription,
  PERIOD_CLOSER,
  Period,
  PeriodCloseCause,
  PeriodCloser,
} from '../subscriptions/subscriptions.service';
import { BillingRun } from './billing-run';
import { InvoicesModule } from './invoices.module';
import { LateUsageChecks } from './late-usage-checks';

/**
 * The invoices' side of the subscriptions' ports (src/subscriptions/billing-hooks.ts): a period
 * that closes gets its draft, in the transaction that closes it.
 */
@Injectable()
export class InvoicePeriodCloser implements PeriodCloser {
  constructor(private readonly billing: BillingRun) {}

  async periodClosed(
    m: EntityManager,
    s: ClosedPeriodSubscription,
    period: Period,
    _cause: PeriodCloseCause,
  ): Promise<void> {
    // A termination or a plan change closes the period early: the whole period (for the fixed
    // fee's proration) is the one the subscription still shows as current.
    const row = await m.findOne(Subscription, { where: { id: s.id } });
    const end =
      row?.currentPeriodEnd && row.currentPeriodEnd > period.end
        ? row.currentPeriodEnd
        : period.end;
    await this.billing.periodClosed(m, {
      tenant: { organizationId: s.organizationId, livemode: s.livemode },
      subscriptionId: s.id,
      customerId: s.customerId,
      planId: s.planId,
      period: { start: period.start, end },
      billedEnd: period.end,
    });
  }
}

/** A test clock's advance issues the drafts whose grace ended, at that instant on the clock. */
@Injectable()
export class DraftIssuing implements ClockStep {
  name = 'invoice-issue';

  constructor(private readonly billing: BillingRun) {}

  nextDueAt(m: EntityManager, clock: AdvancingClock): Promise<Date | null> {
    return this.billing.nextGraceEndOnClock(m, clock.id);
  }

  runDue(m: EntityManager, clock: AdvancingClock, at: Date): Promise<void> {
    return this.billing.issueDueOnClock(m, clock.id, at);
  }
}

/** Provides PERIOD_CLOSER and CLOCK_STEPS to the subscriptions module (a @Global() module). */
@Global()
@Module({
  imports: [InvoicesModule],
  providers: [
    InvoicePeriodCloser,
    DraftIssuing,
    { provide: PERIOD_CLOSER, useExisting: InvoicePeriodCloser },
    {
      provide: CLOCK_STEPS,
      useFactory: (issuing: DraftIssuing, late: LateUsageChecks) => [issuing, late],
      inject: [DraftIssuing, LateUsageChecks],
    },
  ],
  exports: [PERIOD_CLOSER, CLOCK_STEPS],
})
export class InvoiceHooksModule {}
