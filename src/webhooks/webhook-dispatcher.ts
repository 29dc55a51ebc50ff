import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ID_PREFIXES, newId } from '../common/ids';
import { Database, FIRST } from '../database/database';
import { Metrics } from '../platform/metrics';
import { toEventResponse } from '../events/dto/event.response';
import { WebhookAttempt } from './entities/webhook-attempt.entity';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { DeliveryJob, endpointLimits } from './delivery-slots';
import { DeliveryThread } from './delivery-thread';
import type { SendOutcome } from './webhook-sender';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/** How many due deliveries one claim reads for each it may take (some are for full endpoints). */
const CANDIDATES_PER_SLOT = 2;
/** Attempts' outcomes recorded in one transaction at most. */
const RECORD_BATCH = 100;
/**
 * How long ended attempts gather before their batch is recorded (unless a full batch is there
 * already, or the dispatcher is stopping). On SQLite, once attempts came back fast over kept
 * connections, a transaction per few attempts made COMMITs most of the dispatcher's SQL time.
 */
const RECORD_GATHER_MS = 10;
/** Rounds of attempts held ahead at most, however fast an endpoint answers (see `aheadFor`). */
const MAX_ROUNDS = 64;
/** Deliveries one claim takes at most. */
const CLAIM_MAX = 500;
/** How much of an endpoint's expected attempt duration comes from its latest attempt. */
const DURATION_WEIGHT = 0.2;

/**
 * What of an endpoint an attempt is made with: its URL and signing secrets, whether it receives
 * at all, and when it last changed. A held delivery whose endpoint no longer matches this is
 * taken back (and handed back: sent as the endpoint is now, unless its change canceled it).
 */
function sendsAs(e: WebhookEndpoint): string {
  return JSON.stringify([
    // Any change (a disable undone at once leaves the rest as it was, but its cancel stands).
    e.updatedAt.getTime(),
    e.deletedAt === null && e.status === 'enabled',
    e.url,
    e.secretEncrypted,
    e.previousSecretEncrypted,
    e.previousSecretExpiresAt?.getTime() ?? null,
  ]);
}

/** A claimed delivery (its lease token and end set) and what its attempt sends. */
interface Claimed {
  delivery: WebhookDelivery;
  endpoint: WebhookEndpoint;
  /** `sendsAs(endpoint)` when it was claimed. */
  sendsAs: string;
  /** The event as GET shows it: the exact JSON text sent and signed. */
  body: string;
}

/** An attempt made, waiting for its outcome to be recorded. */
interface Attempted {
  claimed: Claimed;
  outcome: SendOutcome;
  /** When the attempt ended. */
  at: Date;
}

/**
 * Delivers queued webhook deliveries, inside the service but never in a request's path.
 *
 * Every WEBHOOK_POLL_INTERVAL_MS (and as soon as a write queues deliveries in this process, or an
 * attempt ends) it claims due deliveries in one transaction, FOR UPDATE SKIP LOCKED on
 * PostgreSQL so that several instances share the work and each attempt is made once, and moves
 * each claimed delivery a lease (WEBHOOK_LEASE_SECONDS) ahead: if this process dies, the
 * delivery is due again when the lease ends, and any instance retries it.
 *
 * The attempts are made by the sending thread (DeliveryThread, delivery-worker.ts), a worker
 * thread with an event loop of its own: a busy API does not slow deliveries, nor deliveries the
 * API. There at most WEBHOOK_CONCURRENCY attempts run at once, and at most
 * WEBHOOK_ENDPOINT_CONCURRENCY to one endpoint (DeliverySlots). The dispatcher claims rounds of
 * attempts ahead (`aheadFor`: as many as end within the lease at the endpoint's pace), so that one
 * claim serves many attempts and an endpoint's next attempt starts the moment one ends. Outcomes are recorded in batches, one transaction for all the attempts that ended
 * meanwhile: each attempt's row, its delivery's next state (WEBHOOK_RETRY_SCHEDULE) and its
 * endpoint's failing streak, under the claim's lease token.
 *
 * Stopping (app.close(), SIGTERM) aborts attempts in flight, records the outcomes of those that
 * ended, and hands the rest back as due now, without counting them as attempts.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private immediate?: NodeJS.Immediate;
  private running = false;
  private polling?: Promise<void>;
  private pollAgain = false;
  /**
   * False once a claim found all that was due (it could have taken more): then an attempt's end
   * is no reason to claim again, until this process queues deliveries or the interval's poll.
   */
  private moreDue = true;
  /** When the scheduled poll runs (Infinity: none is scheduled). */
  private nextTickAt = Infinity;
  /** Claimed deliveries handed to the sending thread and not yet reported, by id. */
  private readonly outstanding = new Map<string, Claimed>();
  /** Per endpoint: the deliveries this process holds (outstanding). */
  private readonly held = new Map<string, number>();
  /** Attempts cut short by stopping, to hand back. */
  private readonly aborted: Claimed[] = [];
  /** When held deliveries were last compared with their endpoints (see `recheck`). */
  private lastRecheckAt = 0;
  private rechecking?: Promise<void>;
  /** Ended attempts to record, and the recording under way. */
  private readonly attempted: Attempted[] = [];
  private recording?: Promise<void>;
  private readonly thread: DeliveryThread;
  /** Held at most in all (see `aheadFor` for one endpoint). */
  private readonly maxHeld: number;
  /** How many attempts one endpoint may have at once, and what counts as fast (DeliverySlots). */
  private readonly endpointLimits: { most: number; fastMs: number };
  /** Rounds held ahead for an endpoint whose pace is not known yet (see `rounds`). */
  private readonly safeRounds: number;
  /**
   * Each endpoint's pace (see `aheadFor`): its expected attempt duration in ms (a moving average
   * of its latest attempts), and whether its last attempt succeeded fast.
   */
  private readonly paces = new Map<string, { expectedMs: number; lastFast: boolean }>();
  /** The dispatcher's units of work go first on SQLite, so delivery keeps pace with writes. */
  private readonly transaction = <T>(work: (m: EntityManager) => Promise<T>) =>
    this.db.transaction(work, undefined, FIRST);

  constructor(
    private readonly db: Database,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly endpointsService: WebhookEndpointsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly logger: PinoLogger,
    private readonly metrics: Metrics,
  ) {
    logger.setContext('WebhookDispatcher');
    const {
      concurrency,
      endpointConcurrency,
      endpointConcurrencyMax,
      timeoutSeconds,
      allowPrivateNetworks,
    } = config.webhooks;
    this.safeRounds = WebhookDispatcher.rounds(config);
    this.maxHeld = concurrency * MAX_ROUNDS;
    const limits = {
      concurrency,
      endpointConcurrency,
      endpointConcurrencyMax,
      timeoutMs: timeoutSeconds * 1000,
    };
    this.endpointLimits = endpointLimits(limits);
    this.thread = new DeliveryThread(
      { ...limits, allowPrivateNetworks },
      {
        ended: (id, outcome, at) => this.ended(id, outcome, at),
        dropped: (id) => this.report(id),
        withdrawn: (ids) => this.withdrawn(ids),
        lost: (err) => this.lost(err),
      },
    );
    endpointsService.onQueued(() => {
      this.moreDue = true;
      this.wake(20);
    });
    endpointsService.onChanged((endpointId) => this.changedHere(endpointId));
    metrics.measureOldestUndelivered(() => db.read((m) => deliveries.oldestUndeliveredAt(m)));
  }

  /**
   * How many rounds of attempts are held for an endpoint whose pace is unknown: a delivery held
   * behind `rounds - 1` others of its slot, each of which may last the whole timeout, still ends
   * before its lease does (WEBHOOK_LEASE_SECONDS is greater than WEBHOOK_TIMEOUT_SECONDS; with
   * the defaults, 5).
   */
  private static rounds(config: AppConfig): number {
    const { leaseSeconds, timeoutSeconds } = config.webhooks;
    return Math.max(1, Math.min(MAX_ROUNDS, Math.floor(leaseSeconds / timeoutSeconds) - 1));
  }

  /**
   * How many deliveries of one endpoint this process may hold: its attempts at once
   * (WEBHOOK_ENDPOINT_CONCURRENCY, or the most DeliverySlots lets an endpoint reach when it
   * answers fast) times the rounds that end within the lease, less one timeout, at the
   * endpoint's expected attempt duration (at least the safe rounds, at most MAX_ROUNDS). A fast
   * endpoint gets many ahead, so that it keeps pace however late the API's busy event loop lets
   * the next claim run; one that slows down gets fewer. A held delivery whose turn comes too late for its lease is not sent
   * (DeliverySlots): it is due again when the lease ends.
   */
  private aheadFor(endpointId: string): number {
    const { endpointConcurrency, leaseSeconds, timeoutSeconds } = this.config.webhooks;
    const pace = this.paces.get(endpointId);
    const rounds =
      pace === undefined
        ? this.safeRounds
        : Math.floor(((leaseSeconds - timeoutSeconds) * 1000) / Math.max(pace.expectedMs, 1));
    // An endpoint that answers fast runs up to `most` attempts at once in the sending thread
    // (DeliverySlots); one whose last attempt failed or was slow is back at the start there.
    const fast =
      pace !== undefined && pace.lastFast && pace.expectedMs <= this.endpointLimits.fastMs;
    const slots = fast ? this.endpointLimits.most : endpointConcurrency;
    return slots * Math.min(MAX_ROUNDS, Math.max(this.safeRounds, rounds));
  }

  onApplicationBootstrap(): void {
    if (!this.config.webhooks.dispatcherEnabled) return;
    this.running = true;
    this.schedule(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
    await this.polling?.catch(() => undefined);
    // In-flight attempts end as aborted (handed back below) or, when they ended first, as
    // outcomes to record; the jobs not started come back.
    const left = await this.thread.stop();
    const back = [...this.aborted.splice(0)];
    for (const id of left) {
      const c = this.report(id);
      if (c) back.push(c);
    }
    await this.handBack(back);
    while (this.recording) await this.recording;
  }

  /** Polls soon (a write just queued deliveries in this process, or a slot freed). */
  private wake(delayMs: number): void {
    if (!this.running) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    // A poll already due as soon stands: writes queueing faster than `delayMs` must not keep
    // pushing it back (they did: under a steady load nothing was delivered until it ended).
    if (this.nextTickAt <= Date.now() + delayMs) return;
    this.schedule(delayMs);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
    this.nextTickAt = Date.now() + delayMs;
    if (delayMs === 0) {
      // In this turn of the event loop, after its I/O: a timer would wait for the next turn,
      // which under a busy API comes late.
      this.immediate = setImmediate(() => this.tick());
      this.immediate.unref();
      return;
    }
    this.timer = setTimeout(() => this.tick(), delayMs);
    this.timer.unref();
  }

  private tick(): void {
    this.nextTickAt = Infinity;
    if (!this.running || this.polling) return;
    this.polling = this.poll()
      .catch((err: unknown) => this.logger.warn({ err }, 'webhook poll failed'))
      .finally(() => {
        this.polling = undefined;
        if (!this.running) return;
        const again = this.pollAgain;
        this.pollAgain = false;
        this.schedule(again ? 0 : this.config.webhooks.pollIntervalMs);
      });
  }

  /**
   * Whether a claim now is worth its statements: there is room for half a full claim. A claim
   * costs about the same for a few deliveries as for hundreds; under a steady fan-out, claiming
   * as each few attempts ended made claims of a dozen deliveries, and their statements took the
   * CPU that sending needed.
   */
  private roomToClaim(): boolean {
    return this.maxHeld - this.outstanding.size >= Math.min(CLAIM_MAX, this.maxHeld) / 2;
  }

  /** Claims what may be held beside what is, and hands it to the sending thread. */
  private async poll(): Promise<void> {
    if (
      this.held.size > 0 &&
      Date.now() - this.lastRecheckAt >= this.config.webhooks.pollIntervalMs
    ) {
      await this.recheck();
    }
    if (!this.roomToClaim()) return;
    const free = Math.min(CLAIM_MAX, this.maxHeld - this.outstanding.size);
    const { send, taken, more, raced } = await this.claim(free);
    this.moreDue = more;
    if (!this.running) {
      // Stopped while claiming: nothing goes to the thread.
      await this.handBack(send);
      return;
    }
    const jobs: DeliveryJob[] = [];
    for (const c of send) {
      this.outstanding.set(c.delivery.id, c);
      this.count(c.endpoint.id, 1);
      jobs.push({
        deliveryId: c.delivery.id,
        endpointId: c.endpoint.id,
        url: c.endpoint.url,
        eventId: c.delivery.eventId,
        body: c.body,
        secrets: this.endpointsService.signingSecrets(c.endpoint),
        leaseEndsAt: c.delivery.nextAttemptAt!.getTime(),
      });
    }
    this.thread.submit(jobs);
    // A full batch suggests more is due, and so does one that lost rows to another instance's
    // claim: look again at once rather than after the interval.
    if (taken === free || raced) this.pollAgain = true;
  }

  /**
   * Up to `free` due deliveries, leased to this process with what each sends: one transaction.
   * Those of an endpoint deleted or disabled since they were queued are canceled in it.
   */
  private async claim(
    free: number,
  ): Promise<{ send: Claimed[]; taken: number; more: boolean; raced: boolean }> {
    const { leaseSeconds } = this.config.webhooks;
    const full = [...this.held].filter(([id, n]) => n >= this.aheadFor(id)).map(([id]) => id);
    const token = randomUUID();
    const now = new Date();
    return this.transaction(async (m) => {
      // Its read and take are index searches however stale the statistics: a burst queues
      // deliveries faster than PostgreSQL's autovacuum analyzes the table, and statistics from
      // before it had every claim sort or scan the whole backlog through a partial index
      // (test/webhooks/stale-statistics.e2e-spec.ts). The other units search primary keys only.
      await this.db.indexSearchesOnly(m);
      const due = await this.deliveries.dueCandidates(m, now, free * CANDIDATES_PER_SLOT, full);
      const chosen: string[] = [];
      const counts = new Map(this.held);
      // More may be due than this claim took: it was full, it read as many as it asked for, or
      // it left out endpoints that held all they may.
      let more = full.length > 0 || due.length >= free * CANDIDATES_PER_SLOT;
      for (const d of due) {
        if (chosen.length >= free) {
          more = true;
          break;
        }
        const n = counts.get(d.endpointId) ?? 0;
        if (n >= this.aheadFor(d.endpointId)) {
          more = true;
          continue;
        }
        counts.set(d.endpointId, n + 1);
        chosen.push(d.id);
      }
      if (chosen.length === 0) return { send: [], taken: 0, more, raced: false };
      const until = new Date(now.getTime() + leaseSeconds * 1000);
      // Only the chosen rows are locked and leased; one another instance took meanwhile is not.
      const order = new Map(chosen.map((id, i) => [id, i]));
      const taken = (await this.deliveries.take(m, chosen, now, until, token)).sort(
        (a, b) => order.get(a.id)! - order.get(b.id)!,
      );
      // Another instance took some of them since they were read: others may be due still.
      const raced = taken.length < chosen.length;
      if (raced) more = true;
      if (taken.length === 0) return { send: [], taken: 0, more, raced };
      // What each attempt sends, read in the same transaction: two statements for the batch.
      const unique = (ids: string[]) => [...new Set(ids)];
      const endpoints = new Map(
        (await this.endpoints.findByIds(m, unique(taken.map((d) => d.endpointId)))).map((e) => [
          e.id,
          e,
        ]),
      );
      const events = new Map(
        (await this.deliveries.events(m, unique(taken.map((d) => d.eventId)))).map((e) => [
          e.id,
          e,
        ]),
      );
      const bodies = new Map<string, string>();
      const send: Claimed[] = [];
      const cancel: string[] = [];
      for (const d of taken) {
        const endpoint = endpoints.get(d.endpointId);
        const event = events.get(d.eventId);
        if (!endpoint || !event) continue;
        if (endpoint.deletedAt !== null || endpoint.status !== 'enabled') {
          cancel.push(d.id);
          continue;
        }
        let body = bodies.get(event.id);
        if (body === undefined)
          bodies.set(event.id, (body = JSON.stringify(toEventResponse(event))));
        send.push({
          delivery: d,
          endpoint,
          sendsAs: sendsAs(endpoint),
          body,
        });
      }
      for (const id of cancel) {
        await this.deliveries.update(m, id, {
          status: 'canceled',
          nextAttemptAt: null,
          leaseToken: null,
        });
      }
      return { send, taken: taken.length, more, raced };
    });
  }

  /**
   * Takes back from the sending thread the held deliveries not started yet whose endpoint has
   * changed since they were claimed: disabled or deleted, or given another URL or secret (a
   * PATCH, a DELETE, a rotation, on another instance; this one's own changes withdraw at once,
   * see `changedHere`). They are handed back due now, so the next claim cancels them or sends
   * them as the endpoint is now. Run at each poll, at most every WEBHOOK_POLL_INTERVAL_MS: one
   * read of the endpoints held.
   */
  private recheck(): Promise<void> {
    this.rechecking ??= (async () => {
      this.lastRecheckAt = Date.now();
      const ids = [...this.held.keys()];
      const now = new Map(
        // A unit of the dispatcher's (FIRST): it never waits behind the requests' units.
        (await this.transaction((m) => this.endpoints.findByIds(m, ids))).map((e) => [e.id, e]),
      );
      const stale: string[] = [];
      for (const c of this.outstanding.values()) {
        const endpoint = now.get(c.endpoint.id);
        if (!endpoint || sendsAs(endpoint) !== c.sendsAs) stale.push(c.delivery.id);
      }
      this.thread.withdraw(stale);
    })()
      .catch((err: unknown) => this.logger.warn({ err }, 'webhook endpoints not rechecked'))
      .finally(() => (this.rechecking = undefined));
    return this.rechecking;
  }

  /**
   * This instance changed an endpoint (its write has committed, its answer not yet left; or its
   * dispatcher disabled it for failing): what is held for it is withdrawn at once, with no read,
   * before the answer goes out. The next
   * claim cancels those the change canceled and sends the others as the endpoint is now.
   */
  private changedHere(endpointId: string): void {
    if (!this.running || !this.held.has(endpointId)) return;
    const ids: string[] = [];
    for (const c of this.outstanding.values()) {
      if (c.endpoint.id === endpointId) ids.push(c.delivery.id);
    }
    this.thread.withdraw(ids);
  }

  /** Deliveries taken back from the sending thread (see `recheck`): due again now. */
  private withdrawn(deliveryIds: string[]): void {
    const back: Claimed[] = [];
    for (const id of deliveryIds) {
      const c = this.report(id);
      if (c) back.push(c);
    }
    void this.handBack(back).then(() => {
      this.moreDue = true;
      this.wake(0);
    });
  }

  /** The sending thread is done with a delivery: this process no longer holds it. */
  private report(deliveryId: string): Claimed | undefined {
    const c = this.outstanding.get(deliveryId);
    if (!c) return undefined;
    this.outstanding.delete(deliveryId);
    this.count(c.endpoint.id, -1);
    // Room to hold more of this endpoint: claim now rather than after the interval, once half of
    // what it may hold is gone (and a claim is worth making, see roomToClaim), if more may be
    // due. Claiming at every slot freed made a claim of a few deliveries, or of none, per attempt
    // or two, and their statements were most of the dispatcher's CPU.
    if (
      this.moreDue &&
      this.roomToClaim() &&
      (this.held.get(c.endpoint.id) ?? 0) * 2 <= this.aheadFor(c.endpoint.id)
    )
      this.wake(0);
    return c;
  }

  private ended(deliveryId: string, outcome: SendOutcome, at: Date): void {
    const c = this.report(deliveryId);
    if (!c) return;
    if (outcome.aborted) {
      // Stopping: handed back as due now, not counted as an attempt.
      this.aborted.push(c);
      return;
    }
    this.observe(c.endpoint.id, outcome);
    this.metrics.webhookAttempts.inc({
      outcome: outcome.succeeded
        ? 'succeeded'
        : outcome.statusCode === null
          ? 'network_error'
          : 'http_error',
    });
    this.attempted.push({ claimed: c, outcome, at });
    this.startRecording();
  }

  /**
   * An attempt to `endpointId` ended: its expected duration moves towards this one's, and the
   * endpoint is noted as answering fast, or not (see `aheadFor`).
   */
  private observe(endpointId: string, { durationMs, succeeded }: SendOutcome): void {
    const before = this.paces.get(endpointId)?.expectedMs;
    if (before === undefined && this.paces.size >= 10_000) this.paces.clear();
    this.paces.set(endpointId, {
      expectedMs:
        before === undefined ? durationMs : before + (durationMs - before) * DURATION_WEIGHT,
      lastFast: succeeded && durationMs <= this.endpointLimits.fastMs,
    });
  }

  /** The sending thread died: what it held is left to its leases' end (at least once). */
  private lost(err: Error): void {
    this.logger.error({ err, held: this.outstanding.size }, 'webhook sending thread lost');
    for (const id of [...this.outstanding.keys()]) this.report(id);
  }

  private count(endpointId: string, by: number): void {
    const n = (this.held.get(endpointId) ?? 0) + by;
    if (n <= 0) this.held.delete(endpointId);
    else this.held.set(endpointId, n);
  }

  /** Deliveries this process holds but will not attempt, due again now for any instance. */
  private async handBack(items: Claimed[]): Promise<void> {
    if (items.length === 0) return;
    const leases = items.map(({ delivery }) => ({ id: delivery.id, token: delivery.leaseToken! }));
    await this.transaction((m) => this.deliveries.handBack(m, leases, new Date())).catch(
      (err: unknown) => this.logger.warn({ err }, 'webhook deliveries not handed back'),
    );
  }

  private startRecording(): void {
    if (this.recording || this.attempted.length === 0) return;
    const gather =
      this.running && this.attempted.length < RECORD_BATCH
        ? new Promise<void>((resolve) => setTimeout(resolve, RECORD_GATHER_MS))
        : Promise.resolve();
    this.recording = gather
      .then(() => this.recordAll())
      .finally(() => {
        this.recording = undefined;
        this.startRecording();
      });
  }

  /**
   * Records the ended attempts, a batch per transaction. A batch that fails to record is
   * logged: its deliveries stay leased and are attempted again when the lease ends (at least
   * once).
   */
  private async recordAll(): Promise<void> {
    while (this.attempted.length > 0) {
      const batch = this.attempted.splice(0, RECORD_BATCH);
      await this.record(batch).catch((err: unknown) =>
        this.logger.warn({ err, attempts: batch.length }, 'webhook attempts failed to record'),
      );
    }
  }

  /** The attempts' rows, their deliveries' next states and their endpoints' failing streaks. */
  private async record(batch: Attempted[]): Promise<void> {
    const { retryScheduleSeconds, disableAfterSeconds } = this.config.webhooks;
    const disabled: string[] = [];
    await this.transaction(async (m) => {
      // The endpoint rows first, then the deliveries: the order in which PATCH and DELETE of an
      // endpoint lock them too (before canceling its deliveries), so the two never deadlock.
      const endpointIds = [...new Set(batch.map((a) => a.claimed.endpoint.id))].sort();
      const endpoints = new Map(
        (await this.endpoints.findByIds(m, endpointIds, true)).map((e) => [e.id, e]),
      );
      const now = new Date();
      // A success leaves nothing to do: its delivery is marked in one statement per lease, those
      // still leased under it only. The others are locked and read (in the order of their ids)
      // for their next state.
      const byToken = new Map<string, string[]>();
      const failedIds = new Set<string>();
      for (const { claimed, outcome } of batch) {
        const { id, leaseToken } = claimed.delivery;
        if (!outcome.succeeded) failedIds.add(id);
        else if (leaseToken !== null) {
          const ids = byToken.get(leaseToken);
          if (ids) ids.push(id);
          else byToken.set(leaseToken, [id]);
        }
      }
      const marked = new Map<string, number>();
      for (const [token, ids] of byToken) {
        const unique = [...new Set(ids)].sort();
        for (const d of await this.deliveries.markSucceeded(m, unique, token, now)) {
          marked.set(d.id, d.attempts);
        }
      }
      const rows = new Map(
        (await this.deliveries.lockMany(m, [...failedIds].sort())).map((d) => [d.id, d]),
      );
      const attempts: WebhookAttempt[] = [];
      const failed: { id: string; changes: Partial<WebhookDelivery> }[] = [];
      const endpointOf = new Map<string, string>();
      /** Each endpoint's failing streak after these attempts, in the order they ended. */
      const streaks = new Map<string, Date | null>();
      for (const { claimed, outcome, at } of batch) {
        const { delivery } = claimed;
        if (outcome.succeeded) {
          // Not marked: the lease ran out and another claim took over (it records its own).
          const attempt = marked.get(delivery.id);
          if (attempt === undefined) continue;
          marked.delete(delivery.id);
          attempts.push(attemptRow(delivery, attempt, outcome, at, null));
          streaks.set(delivery.endpointId, null);
          continue;
        }
        const held = rows.get(delivery.id);
        // The lease ran out and another claim took over: that claim records its own attempt.
        if (!held || held.leaseToken !== delivery.leaseToken) continue;
        rows.delete(held.id);
        const attempt = held.attempts + 1;
        const delay = retryScheduleSeconds[attempt - 1];
        // An endpoint disabled or deleted while the attempt was in flight gets no retry: the
        // attempt is kept, and the delivery canceled as its pending ones were.
        const endpoint = endpoints.get(held.endpointId);
        const retries =
          endpoint?.deletedAt === null &&
          endpoint.status === 'enabled' &&
          held.status !== 'canceled';
        const nextRetryAt =
          delay === undefined || !retries ? null : new Date(at.getTime() + delay * 1000);
        attempts.push(attemptRow(held, attempt, outcome, at, nextRetryAt));
        endpointOf.set(held.id, held.endpointId);
        failed.push({
          id: held.id,
          changes: {
            attempts: attempt,
            status: nextRetryAt ? 'pending' : retries ? 'failed' : 'canceled',
            nextAttemptAt: nextRetryAt,
            leaseToken: null,
          },
        });
        const streak = streaks.has(held.endpointId)
          ? streaks.get(held.endpointId)!
          : (endpoint?.failingSince ?? null);
        streaks.set(held.endpointId, streak ?? at);
      }
      // The endpoints these attempts disable (failing for WEBHOOK_DISABLE_AFTER_SECONDS): their
      // failed attempts plan no retry, and their deliveries are canceled, as disabling does.
      const disabling = new Set<string>();
      for (const [id, since] of streaks) {
        const endpoint = endpoints.get(id);
        if (
          endpoint &&
          since !== null &&
          endpoint.status === 'enabled' &&
          endpoint.deletedAt === null &&
          now.getTime() - since.getTime() >= disableAfterSeconds * 1000
        ) {
          disabling.add(id);
        }
      }
      for (const a of attempts) if (disabling.has(a.endpointId)) a.nextRetryAt = null;
      for (const f of failed) {
        if (f.changes.status === 'pending' && disabling.has(endpointOf.get(f.id)!)) {
          Object.assign(f.changes, { status: 'canceled', nextAttemptAt: null });
        }
      }
      await this.deliveries.insertAttempts(m, attempts);
      for (const { id, changes } of failed) await this.deliveries.update(m, id, changes);
      for (const [id, since] of streaks) {
        const endpoint = endpoints.get(id);
        if (!endpoint) continue;
        if ((endpoint.failingSince?.getTime() ?? null) !== (since?.getTime() ?? null)) {
          await this.endpoints.setFailingSince(m, id, since);
        }
        if (disabling.has(id)) {
          await this.endpointsService.disableFailing(m, { ...endpoint, failingSince: since }, now);
          disabled.push(id);
          this.logger.warn({ endpointId: id }, 'webhook endpoint disabled after failing');
        }
      }
    });
    // What it still holds for an endpoint just disabled is taken back (it stays canceled).
    for (const id of disabled) this.changedHere(id);
  }
}

/** The row of one attempt of `delivery` (its `attempt`th), as it ended. */
function attemptRow(
  delivery: Pick<WebhookDelivery, 'id' | 'endpointId' | 'eventId'>,
  attempt: number,
  outcome: SendOutcome,
  at: Date,
  nextRetryAt: Date | null,
): WebhookAttempt {
  return {
    id: newId(ID_PREFIXES.webhookAttempt),
    deliveryId: delivery.id,
    endpointId: delivery.endpointId,
    eventId: delivery.eventId,
    attempt,
    succeeded: outcome.succeeded,
    statusCode: outcome.statusCode,
    durationMs: outcome.durationMs,
    error: outcome.error,
    nextRetryAt,
    createdAt: at,
  };
}
