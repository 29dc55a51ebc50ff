import { Global, Injectable, Module } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  AdvancingClock,
  CLOCK_STEPS,
  ClockStep,
  ClosedPeriodSubscription,
  PERIOD_CLOSER,
  PeriodCloseCause,
  PeriodCloser,
  Period,
} from '../../src/subscriptions/subscriptions.service';
import {
  advanceClock,
  createClock,
  createCustomer,
  createPricedPlan,
} from '../helpers/billing-factory';
import { createTwoModeTenant } from '../helpers/modes';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';
import { TEST_DIALECT } from '../helpers/test-database';

/** What the ports were told, in order. */
const told: string[] = [];

@Injectable()
class RecordingCloser implements PeriodCloser {
  periodClosed(
    _m: EntityManager,
    s: ClosedPeriodSubscription,
    p: Period,
    cause: PeriodCloseCause,
    context: { now: Date },
  ): Promise<void> {
    told.push(
      `close ${s.planId.slice(-4)} ${p.start.toISOString()} ${p.end.toISOString()} ${cause} now=${context.now.toISOString()}`,
    );
    return Promise.resolve();
  }
}

/** An extra step due on the 15th of every month (as an invoice's grace end would be). */
@Injectable()
class MidMonthStep implements ClockStep {
  name = 'mid-month';
  private done = new Map<string, number>();
  nextDueAt(_m: EntityManager, clock: AdvancingClock): Promise<Date | null> {
    const last = this.done.get(clock.id) ?? Date.parse('2027-01-15T00:00:00.000Z');
    const next = new Date(last);
    next.setUTCMonth(next.getUTCMonth() + 1);
    return Promise.resolve(next);
  }
  async runDue(m: EntityManager, clock: AdvancingClock, at: Date): Promise<void> {
    // Called at every instant the advance stops at: only work due by then is done.
    const due = await this.nextDueAt(m, clock);
    if (!due || due.getTime() > at.getTime()) return;
    told.push(`step ${at.toISOString()}`);
    this.done.set(clock.id, at.getTime());
  }
}

@Global()
@Module({
  providers: [
    RecordingCloser,
    MidMonthStep,
    { provide: PERIOD_CLOSER, useExisting: RecordingCloser },
    { provide: CLOCK_STEPS, useFactory: (s: MidMonthStep) => [s], inject: [MidMonthStep] },
  ],
  exports: [PERIOD_CLOSER, CLOCK_STEPS],
})
class HooksModule {}

describe(`billing hooks: PERIOD_CLOSER and CLOCK_STEPS (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let test: TestTenant;

  beforeAll(async () => {
    t = await startTestApp({}, { extraModules: [HooksModule] });
    test = (await createTwoModeTenant(t, 'Hooks')).test;
  });
  afterAll(() => t.close());
  beforeEach(() => told.splice(0));

  it('closes each period once, in real-time order with the extra steps, and the plan change and termination periods', async () => {
    const clock = await createClock(t, test, '2027-01-31T10:00:00.000Z');
    const customer = await createCustomer(t, test, { testClockId: clock.id });
    const { plan } = await createPricedPlan(t, test, false);
    const { plan: next } = await createPricedPlan(t, test, false);
    const sub = (
      await t
        .http()
        .post('/v0/subscriptions')
        .set(test.auth)
        .send({ customerId: customer.id, planId: plan.id })
        .expect(201)
    ).body;
    await advanceClock(t, test, clock.id, '2027-03-31T10:00:00.000Z');
    await advanceClock(t, test, clock.id, '2027-04-05T00:00:00.000Z');
    await t
      .http()
      .patch(`/v0/subscriptions/${sub.id}`)
      .set(test.auth)
      .send({ planId: next.id })
      .expect(200);
    await advanceClock(t, test, clock.id, '2027-04-06T00:00:00.000Z');
    await t
      .http()
      .post(`/v0/subscriptions/${sub.id}/termination`)
      .set(test.auth)
      .send({ reason: 'done', at: 'now' })
      .expect(200);
    const a = plan.id.slice(-4);
    const b = next.id.slice(-4);
    expect(told).toEqual([
      'step 2027-02-15T00:00:00.000Z',
      `close ${a} 2027-01-31T10:00:00.000Z 2027-02-28T10:00:00.000Z periodEnd now=2027-02-28T10:00:00.000Z`,
      'step 2027-03-15T00:00:00.000Z',
      `close ${a} 2027-02-28T10:00:00.000Z 2027-03-31T10:00:00.000Z periodEnd now=2027-03-31T10:00:00.000Z`,
      `close ${a} 2027-03-31T10:00:00.000Z 2027-04-05T00:00:00.000Z planChange now=2027-04-05T00:00:00.000Z`,
      `close ${b} 2027-04-05T00:00:00.000Z 2027-04-06T00:00:00.000Z termination now=2027-04-06T00:00:00.000Z`,
    ]);
  });

  it('closes the periods a backdated subscription already finished, in the create', async () => {
    const clock = await createClock(t, test, '2027-03-10T00:00:00.000Z');
    const customer = await createCustomer(t, test, { testClockId: clock.id });
    const { plan } = await createPricedPlan(t, test, false, { billingInterval: 'weekly' });
    await t
      .http()
      .post('/v0/subscriptions')
      .set(test.auth)
      .send({ customerId: customer.id, planId: plan.id, startedAt: '2027-02-20T00:00:00.000Z' })
      .expect(201);
    expect(told.map((line) => line.split(' ').slice(2, 5).join(' '))).toEqual([
      '2027-02-20T00:00:00.000Z 2027-02-27T00:00:00.000Z periodEnd',
      '2027-02-27T00:00:00.000Z 2027-03-06T00:00:00.000Z periodEnd',
    ]);
  });
});
