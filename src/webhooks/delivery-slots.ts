import type { SendOutcome } from './webhook-sender';

/** One attempt to make: what the sending thread needs, and nothing more. */
export interface DeliveryJob {
  deliveryId: string;
  endpointId: string;
  url: string;
  /** The event id: the `webhook-id` header. */
  eventId: string;
  /** The exact JSON text sent and signed. */
  body: string;
  /** The endpoint's signing secrets now, current first (two during a rotation's grace period). */
  secrets: string[];
  /** When the delivery's lease ends, in milliseconds since the epoch. */
  leaseEndsAt: number;
}

/** How many attempts run at once, in all and to one endpoint, and how long one may last. */
export interface SlotLimits {
  concurrency: number;
  endpointConcurrency: number;
  /** The most to one endpoint that answers fast (WEBHOOK_ENDPOINT_CONCURRENCY_MAX). */
  endpointConcurrencyMax: number;
  timeoutMs: number;
}

/** What the slots report of each job: its attempt ended, or it was not attempted. */
export interface SlotReports {
  ended(job: DeliveryJob, outcome: SendOutcome, at: number): void;
  /** Too little of its lease was left when its turn came: left to the lease's end. */
  dropped(job: DeliveryJob): void;
  /** Taken back before its turn (`withdraw`): its endpoint changed since it was claimed. */
  withdrawn?(job: DeliveryJob): void;
}

/**
 * The bounds of one endpoint's limit (see DeliverySlots): it starts at `endpointConcurrency` and
 * may reach `most` (`endpointConcurrencyMax`) while its attempts succeed within `fastMs`, a tenth
 * of the timeout and at most a second.
 */
export function endpointLimits(limits: SlotLimits): { most: number; fastMs: number } {
  return { most: limits.endpointConcurrencyMax, fastMs: Math.min(1_000, limits.timeoutMs / 10) };
}

/** Endpoints whose pace is kept (see `paces`); beyond it the slots forget them all. */
const PACES_KEPT = 10_000;

/** How many attempts may run at once to one endpoint now, and the fast successes toward more. */
interface Pace {
  limit: number;
  fast: number;
}

/**
 * Runs delivery attempts as slots free, in the order submitted: at most `concurrency` at once,
 * and to one endpoint at most its limit, so a slow or dead endpoint holds a few slots and delays
 * no other, and the next attempt to an endpoint starts the moment one ends. A job whose lease has
 * no more than one timeout left when its turn comes is not attempted: its lease runs out and any
 * instance takes it again.
 *
 * An endpoint's limit starts at `endpointConcurrency` and grows by one each time as many attempts
 * in a row as the limit (a round) succeeded fast (a 2xx within a tenth of the timeout, at most a
 * second), up to `endpointConcurrencyMax`: an endpoint that answers quickly gets the attempts it can
 * take, so that one endpoint subscribed to every event keeps pace with a busy API. Any other
 * outcome (a failure, or a success that took longer) puts it back at `endpointConcurrency`: a
 * slow or failing endpoint never holds more slots than that.
 */
export class DeliverySlots {
  private readonly ready: DeliveryJob[] = [];
  private readonly sending = new Map<string, number>();
  /** Each endpoint whose latest attempts all succeeded fast: its limit now (see limitOf). */
  private readonly paces = new Map<string, Pace>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly fastMs: number;
  private readonly maxLimit: number;
  private stopped = false;

  constructor(
    private readonly limits: SlotLimits,
    private readonly send: (job: DeliveryJob) => Promise<SendOutcome>,
    private readonly reports: SlotReports,
    private readonly now: () => number = Date.now,
  ) {
    ({ most: this.maxLimit, fastMs: this.fastMs } = endpointLimits(limits));
  }

  /** How many attempts may run at once to this endpoint now (see the class's comment). */
  limitOf(endpointId: string): number {
    return this.paces.get(endpointId)?.limit ?? this.limits.endpointConcurrency;
  }

  submit(jobs: DeliveryJob[]): void {
    if (this.stopped) {
      for (const job of jobs) this.reports.dropped(job);
      return;
    }
    this.ready.push(...jobs);
    this.pump();
  }

  /**
   * Takes back the jobs of these deliveries that have not started, and reports each as
   * withdrawn; one already started runs to its end.
   */
  withdraw(deliveryIds: readonly string[]): void {
    const ids = new Set(deliveryIds);
    const kept: DeliveryJob[] = [];
    const taken: DeliveryJob[] = [];
    for (const job of this.ready) (ids.has(job.deliveryId) ? taken : kept).push(job);
    if (taken.length === 0) return;
    this.ready.splice(0, this.ready.length, ...kept);
    for (const job of taken) this.reports.withdrawn?.(job);
  }

  /** Starts no more attempts; returns the jobs not started, once those in flight have ended. */
  async stop(): Promise<DeliveryJob[]> {
    this.stopped = true;
    const left = this.ready.splice(0);
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
    return left;
  }

  private pump(): void {
    const { concurrency, timeoutMs } = this.limits;
    for (let i = 0; i < this.ready.length && this.inFlight.size < concurrency;) {
      const job = this.ready[i];
      if ((this.sending.get(job.endpointId) ?? 0) >= this.limitOf(job.endpointId)) {
        i++;
        continue;
      }
      this.ready.splice(i, 1);
      if (job.leaseEndsAt - this.now() <= timeoutMs) this.reports.dropped(job);
      else this.start(job);
    }
  }

  private start(job: DeliveryJob): void {
    this.count(job.endpointId, 1);
    const attempt: Promise<void> = this.send(job)
      .then((outcome) => {
        this.pace(job.endpointId, outcome);
        this.reports.ended(job, outcome, this.now());
      })
      .finally(() => {
        this.inFlight.delete(attempt);
        this.count(job.endpointId, -1);
        if (!this.stopped) this.pump();
      });
    this.inFlight.add(attempt);
  }

  /** Raises an endpoint's limit after a round of fast successes; anything else resets it. */
  private pace(endpointId: string, outcome: SendOutcome): void {
    if (outcome.aborted) return;
    const start = this.limits.endpointConcurrency;
    if (!outcome.succeeded || outcome.durationMs > this.fastMs) {
      this.paces.delete(endpointId);
      return;
    }
    let pace = this.paces.get(endpointId);
    if (!pace) {
      if (this.paces.size >= PACES_KEPT) this.paces.clear();
      this.paces.set(endpointId, (pace = { limit: start, fast: 0 }));
    }
    if (++pace.fast >= pace.limit && pace.limit < this.maxLimit) {
      pace.limit++;
      pace.fast = 0;
    }
  }

  private count(endpointId: string, by: number): void {
    const n = (this.sending.get(endpointId) ?? 0) + by;
    if (n <= 0) this.sending.delete(endpointId);
    else this.sending.set(endpointId, n);
  }
}

/** What the dispatcher tells the sending thread. */
export type ToSender =
  | { type: 'submit'; jobs: DeliveryJob[] }
  | { type: 'withdraw'; deliveryIds: string[] }
  | { type: 'stop' };

/** What the sending thread tells the dispatcher (ended and dropped attempts come in batches). */
export type FromSender =
  | {
      type: 'reports';
      ended: { deliveryId: string; outcome: SendOutcome; at: number }[];
      dropped: string[];
      withdrawn: string[];
    }
  | { type: 'stopped'; left: string[] };

/** The sending thread's settings (its workerData). */
export interface SenderSettings extends SlotLimits {
  allowPrivateNetworks: boolean;
}
