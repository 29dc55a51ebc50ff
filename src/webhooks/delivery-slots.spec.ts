import { DeliveryJob, DeliverySlots, SlotLimits } from './delivery-slots';
import type { SendOutcome } from './webhook-sender';

const OK: SendOutcome = {
  succeeded: true,
  statusCode: 200,
  durationMs: 1,
  error: null,
  aborted: false,
};

/** Attempts that end when the test says so. */
function harness(
  limits: SlotLimits = {
    concurrency: 3,
    endpointConcurrency: 2,
    endpointConcurrencyMax: 2,
    timeoutMs: 10_000,
  },
) {
  let now = 1_000_000;
  const pending = new Map<string, (outcome: SendOutcome) => void>();
  const started: string[] = [];
  const ended: string[] = [];
  const dropped: string[] = [];
  const withdrawn: string[] = [];
  const slots = new DeliverySlots(
    limits,
    (job) =>
      new Promise<SendOutcome>((resolve) => {
        started.push(job.deliveryId);
        pending.set(job.deliveryId, resolve);
      }),
    {
      ended: (job) => ended.push(job.deliveryId),
      dropped: (job) => dropped.push(job.deliveryId),
      withdrawn: (job) => withdrawn.push(job.deliveryId),
    },
    () => now,
  );
  const job = (deliveryId: string, endpointId: string, leaseLeftMs = 60_000): DeliveryJob => ({
    deliveryId,
    endpointId,
    url: 'https://example.com/hook',
    eventId: `evt_${deliveryId}`,
    body: '{}',
    secrets: [],
    leaseEndsAt: now + leaseLeftMs,
  });
  const finish = async (id: string, outcome: SendOutcome = OK) => {
    pending.get(id)!(outcome);
    pending.delete(id);
    // Let the attempt's promise chain run.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  const advance = (ms: number) => (now += ms);
  /** Ends every attempt in flight with `outcome`, in the order they started. */
  const finishAll = async (outcome: SendOutcome = OK) => {
    for (const id of [...pending.keys()]) await finish(id, outcome);
  };
  const inFlight = () => pending.size;
  return { slots, job, finish, finishAll, inFlight, advance, started, ended, dropped, withdrawn };
}

describe('DeliverySlots', () => {
  it('withdraws the jobs not started, which never start; one in flight runs to its end', async () => {
    const h = harness();
    h.slots.submit([h.job('a1', 'A'), h.job('a2', 'A'), h.job('a3', 'A'), h.job('a4', 'A')]);
    h.slots.submit([h.job('b1', 'B'), h.job('b2', 'B')]);
    expect(h.started).toEqual(['a1', 'a2', 'b1']);
    h.slots.withdraw(['a1', 'a3', 'a4', 'zz']);
    expect(h.withdrawn).toEqual(['a3', 'a4']);
    await h.finishAll();
    await h.finishAll(); // b2, started as b1 ended
    expect(h.started).toEqual(['a1', 'a2', 'b1', 'b2']);
    expect(h.ended).toEqual(['a1', 'a2', 'b1', 'b2']);
    h.slots.withdraw(['b2']);
    expect(h.withdrawn).toEqual(['a3', 'a4']);
  });

  it('runs at most endpointConcurrency attempts to one endpoint, and others go on beside', async () => {
    const h = harness();
    h.slots.submit([h.job('a1', 'A'), h.job('a2', 'A'), h.job('a3', 'A'), h.job('b1', 'B')]);
    // a3 waits for a slot of A; b1 goes before it.
    expect(h.started).toEqual(['a1', 'a2', 'b1']);
    await h.finish('a1');
    expect(h.started).toEqual(['a1', 'a2', 'b1', 'a3']);
    expect(h.ended).toEqual(['a1']);
  });

  it('runs at most concurrency attempts in all, in the order submitted', async () => {
    const h = harness();
    h.slots.submit([h.job('a1', 'A'), h.job('b1', 'B'), h.job('c1', 'C'), h.job('d1', 'D')]);
    expect(h.started).toEqual(['a1', 'b1', 'c1']);
    await h.finish('b1');
    expect(h.started).toEqual(['a1', 'b1', 'c1', 'd1']);
  });

  it('does not attempt a job with no more than one timeout of its lease left when its turn comes', async () => {
    const h = harness({
      concurrency: 1,
      endpointConcurrency: 1,
      endpointConcurrencyMax: 1,
      timeoutMs: 10_000,
    });
    h.slots.submit([h.job('a1', 'A'), h.job('a2', 'A', 30_000), h.job('a3', 'A', 60_000)]);
    expect(h.started).toEqual(['a1']);
    h.advance(25_000);
    await h.finish('a1');
    // a2 has 5 s of its lease left, less than the 10 s an attempt may take: left to its lease.
    expect(h.dropped).toEqual(['a2']);
    expect(h.started).toEqual(['a1', 'a3']);
  });

  it('on stop starts nothing more and returns what was not started, after those in flight end', async () => {
    const h = harness({
      concurrency: 1,
      endpointConcurrency: 1,
      endpointConcurrencyMax: 1,
      timeoutMs: 10_000,
    });
    h.slots.submit([h.job('a1', 'A'), h.job('a2', 'A')]);
    let left: DeliveryJob[] | undefined;
    const stopping = h.slots.stop().then((jobs) => (left = jobs));
    await Promise.resolve();
    expect(left).toBeUndefined();
    await h.finish('a1');
    await stopping;
    expect(left!.map((j) => j.deliveryId)).toEqual(['a2']);
    expect(h.started).toEqual(['a1']);
    h.slots.submit([h.job('a3', 'A')]);
    expect(h.dropped).toEqual(['a3']);
  });

  describe("an endpoint's limit", () => {
    // As the defaults: 16 in all, 4 to one endpoint to start with, 8 at most.
    const limits = {
      concurrency: 16,
      endpointConcurrency: 4,
      endpointConcurrencyMax: 8,
      timeoutMs: 10_000,
    };
    const SLOW: SendOutcome = { ...OK, durationMs: 1_001 };
    const FAILED: SendOutcome = {
      succeeded: false,
      statusCode: 500,
      durationMs: 1,
      error: 'answered 500',
      aborted: false,
    };
    /** A backlog of `n` jobs to endpoint A. */
    const backlog = (h: ReturnType<typeof harness>, n: number, from = 0) =>
      h.slots.submit(Array.from({ length: n }, (_, i) => h.job(`a${from + i}`, 'A')));

    it('grows by one per round of fast successes, up to endpointConcurrencyMax', async () => {
      const h = harness(limits);
      backlog(h, 200);
      expect(h.inFlight()).toBe(4);
      await h.finishAll(); // 4 fast successes: a round at 4
      expect(h.slots.limitOf('A')).toBe(5);
      expect(h.inFlight()).toBe(5);
      for (let i = 0; i < 10; i++) await h.finishAll();
      expect(h.slots.limitOf('A')).toBe(8);
      expect(h.inFlight()).toBe(8);
      // endpointConcurrencyMax (8 of the 16 slots) at most: the rest stay for other endpoints.
      h.slots.submit([h.job('b1', 'B')]);
      expect(h.started).toContain('b1');
    });

    it('goes back to endpointConcurrency at a failure or a slow success, and never grows from them', async () => {
      for (const outcome of [FAILED, SLOW]) {
        const h = harness(limits);
        backlog(h, 100);
        for (let i = 0; i < 6; i++) await h.finishAll();
        expect(h.slots.limitOf('A')).toBeGreaterThan(4);
        await h.finish(h.started[h.started.length - 1], outcome);
        expect(h.slots.limitOf('A')).toBe(4);
        // Slow or failing from here on: it stays at 4, and holds at most 4 slots.
        for (let i = 0; i < 6; i++) await h.finishAll(outcome);
        expect(h.slots.limitOf('A')).toBe(4);
        expect(h.inFlight()).toBe(4);
      }
    });

    it('is not changed by an aborted attempt', async () => {
      const h = harness(limits);
      backlog(h, 100);
      await h.finishAll();
      expect(h.slots.limitOf('A')).toBe(5);
      await h.finishAll({ ...FAILED, error: 'aborted', aborted: true });
      expect(h.slots.limitOf('A')).toBe(5);
    });

    it('grows only up to endpointConcurrencyMax, and not at all when that is the start', async () => {
      for (const [most, reached] of [
        [6, 6],
        [4, 4],
      ]) {
        const h = harness({ ...limits, endpointConcurrencyMax: most });
        backlog(h, 100);
        for (let i = 0; i < 8; i++) await h.finishAll();
        expect(h.slots.limitOf('A')).toBe(reached);
        expect(h.inFlight()).toBe(reached);
      }
    });
  });
});
