import { Inject, Injectable, Optional } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { CustomersService } from '../customers/customers.service';
import { Database } from '../database/database';
import { sameValue } from '../database/locked-update';
import { Caller, SYSTEM } from '../platform/caller';
import { EventType } from '../events/event-types';
import { EventsService } from '../events/events.service';
import { PlansService } from '../plans/plans.service';
import {
  AdvancingClock,
  ClockStep,
  ClosedPeriodSubscription,
  NO_PERIOD_CLOSER,
  PERIOD_CLOSER,
  PeriodCloseCause,
  PeriodCloser,
} from './billing-hooks';
import { Period, nthPeriod, periodContaining } from './billing-periods';
import { toSubscriptionResponse } from './dto/subscription.response';
import { Subscription } from './entities/subscription.entity';
import { SubscriptionsRepository } from './subscriptions.repository';

/** The caller of background work: the service itself, for the subscription's tenant. */
function systemCaller(s: Subscription): Caller {
  return {
    principal: { organizationId: s.organizationId, livemode: s.livemode },
    actor: SYSTEM,
    request: null,
  };
}

/** When the subscription next needs the service: its start, period end or scheduled end. */
export function nextActionOf(s: Subscription): Date | null {
  if (s.status === 'pending') return s.startedAt;
  if (s.status !== 'active') return null;
  const end = s.currentPeriodEnd!;
  return s.endingAt && s.endingAt.getTime() < end.getTime() ? s.endingAt : end;
}

/**
 * A subscription's lifecycle on the customer's time (docs/api.md §5.10): `settle` runs every
 * transition due by an instant (a pending start, a period end, a scheduled end), in the order
 * real time runs them; the real-time job (SubscriptionsJob), a test clock's advance (this is its
 * ClockStep) and every write of SubscriptionsService call it. Each closed period goes to the
 * PeriodCloser port (billing-hooks.ts), in the same transaction.
 */
@Injectable()
export class SubscriptionLifecycle implements ClockStep {
  readonly name = 'subscriptions';
  private readonly closer: PeriodCloser;

  constructor(
    private readonly db: Database,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly customers: CustomersService,
    private readonly plans: PlansService,
    private readonly events: EventsService,
    @Optional() @Inject(PERIOD_CLOSER) closer?: PeriodCloser,
  ) {
    this.closer = closer ?? NO_PERIOD_CLOSER;
  }

  /**
   * Runs every transition of `s` due at or before `now`, in order, each with its event: a
   * pending start, a scheduled end reached, a period end passed (the next period opens, from
   * the anchor). Returns the subscription as it is after them.
   */
  async settle(
    m: EntityManager,
    found: Subscription,
    now: Date,
    caller: Caller,
  ): Promise<Subscription> {
    let s = found;
    for (;;) {
      const t = now.getTime();
      if (s.status === 'pending' && s.startedAt.getTime() <= t) {
        const first = nthPeriod(s.billingAnchor, s.billingInterval, 0);
        s = await this.transition(m, s, 'subscription.started', caller, {
          status: 'active',
          currentPeriodStart: first.start,
          currentPeriodEnd: first.end,
        });
        continue;
      }
      if (s.status !== 'active') return s;
      const end = s.currentPeriodEnd!;
      if (s.endingAt && s.endingAt.getTime() <= end.getTime() && s.endingAt.getTime() <= t) {
        const period = { start: s.currentPeriodStart!, end: s.endingAt };
        return this.end(m, s, s.endingAt, s.terminationReason, caller, period, now);
      }
      if (end.getTime() > t) return s;
      await this.close(m, s, { start: s.currentPeriodStart!, end }, 'periodEnd', caller, now);
      const next = periodContaining(s.billingAnchor, s.billingInterval, end);
      s = await this.transition(m, s, 'subscription.updated', caller, {
        currentPeriodStart: next.start,
        currentPeriodEnd: next.end,
      });
    }
  }

  /** ClockStep: when a subscription of the clock's customers next needs work. */
  nextDueAt(m: EntityManager, clock: AdvancingClock): Promise<Date | null> {
    return this.subscriptions.nextDueOnClock(m, clock.id);
  }

  /** ClockStep: settles every subscription of the clock's customers due at or before `at`. */
  async runDue(m: EntityManager, clock: AdvancingClock, at: Date, caller: Caller): Promise<void> {
    for (const s of await this.subscriptions.dueOnClock(m, clock.id, at)) {
      await this.settle(m, s, at, caller);
    }
  }

  /**
   * The real-time job's work on one claimed subscription: settles it on real time, in a
   * transaction of its own. Idempotent: what is due is read from the row, not from the claim.
   */
  async settleDue(id: string): Promise<void> {
    await this.db.transaction(async (m) => {
      const s = await this.subscriptions.findForWork(m, id);
      if (!s || s.testClockId !== null) return;
      const settled = await this.settle(m, s, new Date(), systemCaller(s));
      // Nothing was due (a lease that outlived an earlier run): put the due time back.
      const next = nextActionOf(settled);
      if (!sameValue(next, settled.nextActionAt)) {
        await this.subscriptions.update(m, id, { nextActionAt: next });
      }
    });
  }

  /** Terminates `s` at `at`, closing `period` first when it is not empty. */
  async end(
    m: EntityManager,
    s: Subscription,
    at: Date,
    reason: string | null,
    caller: Caller,
    period: Period | null,
    now: Date = at,
  ): Promise<Subscription> {
    if (period && period.end.getTime() > period.start.getTime()) {
      await this.close(m, s, period, 'termination', caller, now);
    }
    const ended = await this.transition(m, s, 'subscription.terminated', caller, {
      status: 'terminated',
      terminatedAt: at,
      endingAt: at,
      terminationReason: reason,
      currentPeriodStart: null,
      currentPeriodEnd: null,
    });
    await this.customers.countSubscriptions(m, s.customerId, -1);
    await this.plans.countSubscriptions(m, s.planId, -1);
    return ended;
  }

  /** Writes `changes` (and the due time they make) and records `type` with the change. */
  private async transition(
    m: EntityManager,
    s: Subscription,
    type: EventType,
    caller: Caller,
    changes: Partial<Subscription>,
  ): Promise<Subscription> {
    const after = await this.write(m, s, changes);
    await this.events.recordUpdate(
      m,
      { ...caller, principal: { organizationId: s.organizationId, livemode: s.livemode }, type },
      toSubscriptionResponse(s),
      toSubscriptionResponse(after),
    );
    return after;
  }

  /** Writes `changes` and the due time they make (no event: the caller records it). */
  async write(
    m: EntityManager,
    s: Subscription,
    changes: Partial<Subscription>,
  ): Promise<Subscription> {
    const next: Subscription = { ...s, ...changes, updatedAt: new Date() };
    next.nextActionAt = nextActionOf(next);
    await this.subscriptions.update(m, s.id, {
      ...changes,
      nextActionAt: next.nextActionAt,
      updatedAt: next.updatedAt,
    });
    return next;
  }

  /** Hands a period that closed to the PeriodCloser port, unless it is empty. */
  async close(
    m: EntityManager,
    s: Subscription,
    period: Period,
    cause: PeriodCloseCause,
    caller: Caller,
    now: Date,
  ): Promise<void> {
    if (period.end.getTime() <= period.start.getTime()) return;
    const subscription: ClosedPeriodSubscription = {
      id: s.id,
      organizationId: s.organizationId,
      livemode: s.livemode,
      customerId: s.customerId,
      planId: s.planId,
      currency: s.currency,
      testClockId: s.testClockId,
    };
    await this.closer.periodClosed(m, subscription, period, cause, { caller, now });
  }
}
