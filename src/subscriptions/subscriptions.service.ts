import { Injectable } from '@nestjs/common';
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
import { Caller } from '../platform/caller';
import { EventsService } from '../events/events.service';
import { PlansService, SubscribablePlan } from '../plans/plans.service';
import { nthPeriod } from './billing-periods';
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
import { SubscriptionLifecycle, nextActionOf } from './subscription-lifecycle';
import { SubscriptionsRepository } from './subscriptions.repository';

export * from './billing-hooks';
export { nthPeriod, periodContaining, periodStart } from './billing-periods';
export type { NumberedPeriod, Period } from './billing-periods';

/** How far back a subscription may start (docs/api.md §5.10). */
export const MAX_BACKDATE_DAYS = 90;
const DAY_MS = 86_400_000;

/**
 * The rules of subscriptions (docs/api.md §5.10): create, read, change and terminate. Each write
 * first settles the subscription on the customer's time (SubscriptionLifecycle.settle), so that
 * it applies to the subscription as it is now.
 */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly db: Database,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly customers: CustomersService,
    private readonly clock: ClockService,
    private readonly plans: PlansService,
    private readonly events: EventsService,
    private readonly lifecycle: SubscriptionLifecycle,
  ) {}

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
      const settled = await this.lifecycle.settle(m, subscription, now, caller);
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
      let s = await this.lifecycle.settle(m, found, now, caller);
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
          await this.lifecycle.close(
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
      s = await this.lifecycle.write(m, s, changes);
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
      const s = await this.lifecycle.settle(m, found, now, caller);
      if (s.status === 'terminated') throw new SubscriptionTerminatedError(s.id);
      const at = dto.at ?? 'periodEnd';
      if (s.status === 'pending' || at === 'now') {
        const period = s.status === 'active' ? { start: s.currentPeriodStart!, end: now } : null;
        return toSubscriptionResponse(
          await this.lifecycle.end(m, s, now, dto.reason, caller, period),
        );
      }
      const before = toSubscriptionResponse(s);
      const after = await this.lifecycle.write(m, s, {
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
