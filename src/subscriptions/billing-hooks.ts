import { EntityManager } from 'typeorm';
import type { Caller } from '../events/caller';
import type { Period } from './billing-periods';

/**
 * The ports through which a module above subscriptions (invoices) takes part in their billing
 * steps, without subscriptions importing it. A module provides one by exporting the token from a
 * `@Global()` module of its own, e.g.
 *
 * ```ts
 * @Global()
 * @Module({ imports: [InvoicesModule],
 *   providers: [{ provide: PERIOD_CLOSER, useExisting: InvoicePeriodCloser },
 *               { provide: CLOCK_STEPS, useFactory: (s: DraftIssuing) => [s], inject: [DraftIssuing] }],
 *   exports: [PERIOD_CLOSER, CLOCK_STEPS] })
 * export class InvoicesHooksModule {}
 * ```
 *
 * Without one, a period closes with nothing more done and an advance runs the subscriptions' own
 * steps alone.
 */

/** Injection token of the PeriodCloser. */
export const PERIOD_CLOSER = Symbol('PERIOD_CLOSER');
/** Injection token of the extra ClockSteps (an array, run in its order after subscriptions'). */
export const CLOCK_STEPS = Symbol('CLOCK_STEPS');

/** What a PeriodCloser is told about the subscription whose period closed. */
export interface ClosedPeriodSubscription {
  id: string;
  organizationId: string;
  livemode: boolean;
  customerId: string;
  /** The plan the period was billed under (the old one, on a plan change). */
  planId: string;
  currency: string;
  testClockId: string | null;
}

/**
 * Why a period closed: its end passed (`periodEnd`), the subscription ended inside or at the end
 * of it (`termination`: at once, or at `endingAt`), or its plan changed (`planChange`: the
 * period ends at the change, a partial period under the old plan).
 */
export type PeriodCloseCause = 'periodEnd' | 'termination' | 'planChange';

/**
 * Called in the open, inside the transaction that closes a period, once per period that closes
 * (for a backdated subscription, once for each period already over). `period` is [start, end).
 * `caller` is who made the change (an API key, or the system for real-time work); `now` is
 * the customer's time (its clock's on a test clock).
 */
export interface PeriodCloser {
  periodClosed(
    m: EntityManager,
    subscription: ClosedPeriodSubscription,
    period: Period,
    cause: PeriodCloseCause,
    context: { caller: Caller; now: Date },
  ): Promise<void>;
}

/** The closer used when no module provides one. */
export const NO_PERIOD_CLOSER: PeriodCloser = { periodClosed: () => Promise.resolve() };

/** The test clock an advance moves. */
export interface AdvancingClock {
  id: string;
  organizationId: string;
  livemode: boolean;
}

/**
 * One kind of billing step a test clock's advance runs (docs/api.md §5.9). The advance asks
 * every step for its next due instant, takes the earliest, sets the clock to it, and runs every
 * step's work due then (subscriptions' own first: periods closing, scheduled ends, pending
 * starts; then the extra steps in their order, e.g. invoices: drafts whose grace ended are
 * issued); until nothing is due before the target time, which the clock then takes. All of it
 * runs in the advance's transaction, each step recording its events.
 */
export interface ClockStep {
  /** Names the step in logs and errors. */
  name: string;
  /** The earliest instant at which this step has work for the clock's customers, or null. */
  nextDueAt(m: EntityManager, clock: AdvancingClock): Promise<Date | null>;
  /**
   * Does the step's work due at or before `at`; the clock reads `at` meanwhile. Called at every
   * instant the advance stops at (another step's too): a step with nothing due then does nothing.
   */
  runDue(m: EntityManager, clock: AdvancingClock, at: Date, caller: Caller): Promise<void>;
}
