import { Inject, Injectable, Optional } from '@nestjs/common';
import { parseInstant } from '../common/validation/instant';
import { TestClocksService } from '../customers/customers.service';
import { Database } from '../database/database';
import { Caller } from '../platform/caller';
import { AdvancingClock, CLOCK_STEPS, ClockStep } from './billing-hooks';
import { SubscriptionLifecycle } from './subscription-lifecycle';

/** A guard against a step that never stops being due (a bug): far more than two years of days. */
const MAX_STEPS = 100_000;

/**
 * `POST /v0/testClocks/{id}/advance` (docs/api.md §5.9): moves a clock to a later time, running
 * on the way every billing step the time passed, in the order real time would have run them
 * (see ClockStep in billing-hooks.ts): the earliest due instant of any step first; at one
 * instant, subscriptions' steps first (periods closing, scheduled ends, pending starts), then
 * the extra steps (invoices) in their order. One transaction: the advance happens whole or not
 * at all, and its answer (with an Idempotency-Key) is stored in the same commit.
 */
@Injectable()
export class ClockAdvancer {
  private readonly steps: ClockStep[];

  constructor(
    private readonly db: Database,
    private readonly clocks: TestClocksService,
    subscriptions: SubscriptionLifecycle,
    @Optional() @Inject(CLOCK_STEPS) extra?: ClockStep[],
  ) {
    this.steps = [subscriptions, ...(extra ?? [])];
  }

  async advance(caller: Caller, id: string, frozenTime: string) {
    const to = parseInstant(frozenTime)!;
    return this.db.transaction(async (m) => {
      let clock = await this.clocks.lockForAdvance(m, caller.principal, id, to);
      const advancing: AdvancingClock = {
        id: clock.id,
        organizationId: clock.organizationId,
        livemode: clock.livemode,
      };
      for (let i = 0; ; i++) {
        if (i === MAX_STEPS) throw new Error(`test clock ${clock.id}: a step stays due`);
        let next: Date | null = null;
        for (const step of this.steps) {
          const due = await step.nextDueAt(m, advancing);
          if (due && (!next || due.getTime() < next.getTime())) next = due;
        }
        if (!next || next.getTime() > to.getTime()) break;
        if (next.getTime() > clock.frozenTime.getTime()) {
          clock = await this.clocks.moveTo(m, clock, next);
        }
        const at = clock.frozenTime;
        for (const step of this.steps) await step.runDue(m, advancing, at, caller);
      }
      clock = await this.clocks.moveTo(m, clock, to);
      return this.clocks.view(clock);
    }, caller.commit);
  }
}
