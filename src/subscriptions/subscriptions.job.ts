import { Injectable, OnModuleInit } from '@nestjs/common';
import { LeasePoller } from '../database/lease-poller';
import { SubscriptionLifecycle } from './subscription-lifecycle';
import { SubscriptionsRepository } from './subscriptions.repository';

/** How often the job looks for due subscriptions, and how long a claim holds one. */
export const SUBSCRIPTIONS_POLL_MS = 1000;
export const SUBSCRIPTIONS_LEASE_MS = 60_000;

/**
 * Real time (docs/api.md §5.10): a pending subscription starts, a period rolls and a scheduled
 * end takes effect by itself when its instant passes, as a job of the LeasePoller. A
 * subscription's `next_action_at` says when it is due; a claim moves it a lease ahead; the run
 * settles the subscription on real time in one transaction (SubscriptionLifecycle.settleDue),
 * which writes the next due time. A process that dies after its claim leaves the row due again
 * when the lease ends; one that was down when the instant passed finds it due at start. Customers
 * on a test clock are moved by the clock's advance alone.
 */
@Injectable()
export class SubscriptionsJob implements OnModuleInit {
  constructor(
    private readonly poller: LeasePoller,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly lifecycle: SubscriptionLifecycle,
  ) {}

  onModuleInit(): void {
    this.poller.register<string>({
      name: 'subscriptions',
      intervalMs: SUBSCRIPTIONS_POLL_MS,
      concurrency: 10,
      leaseMs: SUBSCRIPTIONS_LEASE_MS,
      claim: (m, now, limit, leaseUntil) => this.subscriptions.claimDue(m, now, limit, leaseUntil),
      run: (id) => this.lifecycle.settleDue(id),
    });
  }
}
