import { Inject, Injectable, Optional } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { assertIfMatch } from '../common/etag';
import { NotFoundError } from '../common/errors';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { mergeMetadata } from '../common/metadata';
import { Tenant } from '../common/tenant';
import { parseInstant } from '../common/validation/instant';
import { ClockService, CustomersService } from '../customers/customers.service';
import { Database } from '../database/database';
import { sameValue } from '../database/locked-update';
import { Caller, SYSTEM } from '../events/caller';
import { EventType } from '../events/event-types';
import { EventsService } from '../events/events.service';
import { PlansService, SubscribablePlan } from '../plans/plans.service';
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
import {
  CreateSubscriptionDto,
  ListSubscriptionsQueryDto,
  TerminateSubscriptionDto,
  UpdateSubscriptionDto,
} from './dto/subscription.dto';
import { SubscriptionResponse, toSubscriptionResponse } from './dto/subscription.response';
import { Subscription } from './entities/subscription.entity';
import {
  MetricAlreadySubscribedError,
  SubscriptionTerminatedError,
  backdatedTooFar,
  currencyMismatch,
} from './subscriptions.errors';
import { SubscriptionsRepository } from './subscriptions.repository';

export * from './billing-hooks';
export { nthPeriod, periodContaining, periodStart } from './billing-periods';
export type { NumberedPeriod, Period } from './billing-periods';

/** How far back a subscription may start (docs/api.md §5.10). */
export const MAX_BACKDATE_DAYS = 90;
const DAY_MS = 86_400_000;

/** The caller of background work: the service itself, for the subscription's tenant. */
function systemCaller(s: Subscription): Caller {
  return {
    principal: { organizationId: s.organizationId, livemode: s.livemode },
    actor: SYSTEM,
    request: null,
  };
}

/** When the subscription next needs the service: its start, period end or scheduled end. */
function nextActionOf(s: Subscription): Date | null {
  if (s.status === 'pending') return s.startedAt;
  if (s.status !== 'active') return null;
  const end = s.currentPeriodEnd!;
  return s.endingAt && s.endingAt.getTime() < end.getTime() ? s.endingAt : end;
}

/**
 * The rules of subscriptions (docs/api.md §5.10) and their lifecycle on the customer's time:
 * `settle` runs every transition due by an instant (a pending start, a period end, a scheduled
 * end), in the order real time runs them; the real-time job, a test clock's advance and every
 * write call it. Each closed period goes to the PeriodCloser port (billing-hooks.ts), in the
 * same transaction.
 */
@Injectable()
export class SubscriptionsService implements ClockStep {
  readonly name = 'subscriptions';
  private readonly closer: PeriodCloser;

  constructor(
    private readonly db: Database,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly customers: CustomersService,
    private readonly clock: ClockService,
    private readonly plans: PlansService,
    private readonly events: EventsService,
    @Optional() @Inject(PERIOD_CLOSER) closer?: PeriodCloser,
  ) {
    this.closer = closer ?? NO_PERIOD_CLOSER;
  }

  async create(caller: Caller, dto: CreateSubscriptionDto): Promise<SubscriptionResponse> {
    const tenant = caller.principal;
    return this.db.transaction(async (m) => {
      // The customer first, locked: two subscription writes for one customer take turns, so
      // the one-metric rule holds under races. Then the plan, locked: its freeze holds.
      const customer = await this.customers.lockForSubscription(m, tenant, dto.customerId);
      const plan = await this.plans.forSubscription(m, tenant, dto.planId);
      await this.assertMetricsFree(m, customer.id, plan, null);
      const now = await this.clock.now(m, tenant, customer.testClockId);
      const startedAt = dto.startedAt ? parseInstant(dto.startedAt)! : now;
      const earliest = new Date(now.getTime() - MAX_BACKDATE_DAYS * DAY_MS);
      if (startedAt.getTime() < earliest.getTime()) throw backdatedTooFar(earliest);

      const created = new Date();
      const pending = startedAt.getTime() > now.getTime();
      const first = nthPeriod(startedAt, plan.billingInterval, 0);
      const subscription: Subscription = {
        id: newId(ID_PREFIXES.subscription),
        organizationId: tenant.organizationId,
        livemode: tenant.livemode,
        customerId: customer.id,
        planId: plan.id,
        testClockId: customer.testClockId,
        currency: plan.currency,
        billingInterval: plan.billingInterval,
        status: pending ? 'pending' : 'active',
        startedAt,
        billingAnchor: startedAt,
        currentPeriodStart: pending ? null : first.start,
        currentPeriodEnd: pending ? null : first.end,
        endingAt: null,
        terminatedAt: null,
        terminationReason: null,
        metadata: dto.metadata ?? {},
        nextActionAt: null,
        createdAt: created,
        updatedAt: created,
      };
      subscription.nextActionAt = nextActionOf(subscription);
      await this.subscriptions.insert(m, subscription);
      await this.customers.countSubscriptions(m, customer.id, +1);
      await this.plans.countSubscriptions(m, plan.id, +1);
      await this.events.record(m, {
        ...caller,
        type: 'subscription.created',
        object: toSubscriptionResponse(subscription),
      });
      // Backdated: the periods already over close now, as if the service had been running.
      const settled = await this.settle(m, subscription, now, caller);
      return toSubscriptionResponse(settled);
    }, caller.commit);
  }

  async get(tenant: Tenant, id: string): Promise<SubscriptionResponse> {
    return toSubscriptionResponse(await this.db.read((m) => this.find(m, tenant, id)));
  }

  async list(
    tenant: Tenant,
    query: ListSubscriptionsQueryDto,
  ): Promise<ListResponse<SubscriptionResponse>> {
    const [rows, total] = await this.db.snapshot((m) => this.subscriptions.page(m, tenant, query));
    return toListResponse(rows.map(toSubscriptionResponse), total, query);
  }

  /**
   * `metadata` (merged) and `planId`: a plan change ends the current period now (closed under
   * the old plan) and anchors a new series of periods now under the new plan.
   */
  async update(
    caller: Caller,
    id: string,
    dto: UpdateSubscriptionDto,
    ifMatch?: string,
  ): Promise<SubscriptionResponse> {
    const tenant = caller.principal;
    return this.db.transaction(async (m) => {
      const found = await this.find(m, tenant, id, true);
      assertIfMatch(ifMatch, toSubscriptionResponse(found));
      if (found.status === 'terminated') throw new SubscriptionTerminatedError(found.id);
      const customer = await this.customers.lockForSubscription(m, tenant, found.customerId);
      const now = await this.clock.now(m, tenant, customer.testClockId);
      let s = await this.settle(m, found, now, caller);
      if (s.status === 'terminated') throw new SubscriptionTerminatedError(s.id);
      const before = toSubscriptionResponse(s);
      const changes: Partial<Subscription> = {};
      const metadata = mergeMetadata(s.metadata, dto.metadata);
      if (metadata !== undefined && !sameValue(metadata, s.metadata)) changes.metadata = metadata;

      if (dto.planId !== undefined && dto.planId !== s.planId) {
        const plan = await this.plans.forSubscription(m, tenant, dto.planId);
        if (plan.currency !== s.currency) throw currencyMismatch(s.currency, plan.currency);
        await this.assertMetricsFree(m, s.customerId, plan, s.id);
        if (s.status === 'active') {
          await this.close(
            m,
            s,
            { start: s.currentPeriodStart!, end: now },
            'planChange',
            caller,
            now,
          );
          const first = nthPeriod(now, plan.billingInterval, 0);
          Object.assign(changes, {
            billingAnchor: now,
            currentPeriodStart: first.start,
            currentPeriodEnd: first.end,
          });
        }
        Object.assign(changes, { planId: plan.id, billingInterval: plan.billingInterval });
        await this.plans.countSubscriptions(m, s.planId, -1);
        await this.plans.countSubscriptions(m, plan.id, +1);
      }
      if (Object.keys(changes).length === 0) return before;
      s = await this.write(m, s, changes);
      await this.events.recordUpdate(
        m,
        { ...caller, type: 'subscription.updated' },
        before,
        toSubscriptionResponse(s),
      );
      return toSubscriptionResponse(s);
    }, caller.commit);
  }

  /**
   * Ends a subscription: `now` at once (the partial period closes), `periodEnd` at the end of
   * the current period (`endingAt`). A pending subscription ends at once either way.
   */
  async terminate(
    caller: Caller,
    id: string,
    dto: TerminateSubscriptionDto,
  ): Promise<SubscriptionResponse> {
    const tenant = caller.principal;
    return this.db.transaction(async (m) => {
      const found = await this.find(m, tenant, id, true);
      if (found.status === 'terminated') throw new SubscriptionTerminatedError(found.id);
      await this.customers.lockForSubscription(m, tenant, found.customerId);
      const now = await this.clock.now(m, tenant, found.testClockId);
      const s = await this.settle(m, found, now, caller);
      if (s.status === 'terminated') throw new SubscriptionTerminatedError(s.id);
      const at = dto.at ?? 'periodEnd';
      if (s.status === 'pending' || at === 'now') {
        const period = s.status === 'active' ? { start: s.currentPeriodStart!, end: now } : null;
        return toSubscriptionResponse(await this.end(m, s, now, dto.reason, caller, period));
      }
      const before = toSubscriptionResponse(s);
      const after = await this.write(m, s, {
        endingAt: s.currentPeriodEnd,
        terminationReason: dto.reason,
      });
      await this.events.recordUpdate(
        m,
        { ...caller, type: 'subscription.updated' },
        before,
        toSubscriptionResponse(after),
      );
      return toSubscriptionResponse(after);
    }, caller.commit);
  }

  // ---- The lifecycle -------------------------------------------------------------------------

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

  /** The real-time job's claim (see SubscriptionsJob). */
  claimDue(m: EntityManager, now: Date, limit: number, leaseUntil: Date): Promise<string[]> {
    return this.subscriptions.claimDue(m, now, limit, leaseUntil);
  }

  /** Terminates `s` at `at`, closing `period` first when it is not empty. */
  private async end(
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

  private async write(
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

  private async close(
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

  /** 409 METRIC_ALREADY_SUBSCRIBED when another live subscription prices a metric of `plan`. */
  private async assertMetricsFree(
    m: EntityManager,
    customerId: string,
    plan: SubscribablePlan,
    except: string | null,
  ): Promise<void> {
    if (plan.metricIds.length === 0) return;
    const others = (await this.subscriptions.liveOfCustomer(m, customerId)).filter(
      (s) => s.id !== except,
    );
    if (others.length === 0) return;
    const metrics = await this.plans.metricsOfPlans(m, [...new Set(others.map((s) => s.planId))]);
    const wanted = new Set(plan.metricIds);
    for (const other of others) {
      const shared = metrics.get(other.planId)?.find((metric) => wanted.has(metric));
      if (shared) throw new MetricAlreadySubscribedError(shared, other.id);
    }
  }

  private async find(m: EntityManager, tenant: Tenant, id: string, lock = false) {
    const s = isIdOf(ID_PREFIXES.subscription, id)
      ? await this.subscriptions.find(m, tenant, id, lock)
      : null;
    if (!s) throw new NotFoundError('subscription', id);
    return s;
  }
}
