import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ID_PREFIXES, newId } from '../common/ids';
import { Database, FIRST } from '../database/database';
import { Metrics } from '../platform/metrics';
import { toEventResponse } from '../events/dto/event.response';
import { EventRecord } from '../events/entities/event.entity';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { SendOutcome, sendWebhook } from './webhook-sender';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/** How many due deliveries one claim looks at for each free slot (some may be for busy endpoints). */
const CANDIDATES_PER_SLOT = 4;

interface Claimed {
  delivery: WebhookDelivery;
  endpoint: WebhookEndpoint;
  event: EventRecord;
}

/**
 * Delivers queued webhook deliveries, inside the service but never in a request's path.
 *
 * Every WEBHOOK_POLL_INTERVAL_MS (and as soon as a write queues deliveries in this process) it
 * claims due deliveries in one transaction, FOR UPDATE SKIP LOCKED on PostgreSQL so that several
 * instances share the work and each attempt is made once, and moves each claimed delivery a lease
 * (WEBHOOK_LEASE_SECONDS) ahead: if this process dies mid-attempt, the delivery is due again when
 * the lease ends, and any instance retries it. At most WEBHOOK_CONCURRENCY attempts run at once,
 * and at most WEBHOOK_ENDPOINT_CONCURRENCY to one endpoint, so a slow or dead endpoint holds a few
 * slots and delays no other. Each attempt's outcome, the next retry (WEBHOOK_RETRY_SCHEDULE) and
 * the endpoint's failing streak are written in one transaction, under the claim's lease token.
 *
 * Stopping (app.close(), SIGTERM) aborts attempts in flight and hands their deliveries back as
 * due now, without counting them as attempts.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private running = false;
  private stopping = false;
  private polling?: Promise<void>;
  private pollAgain = false;
  /** When the scheduled poll runs (Infinity: none is scheduled). */
  private nextTickAt = Infinity;
  private readonly inFlight = new Map<string, { endpointId: string; done: Promise<void> }>();
  private readonly perEndpoint = new Map<string, number>();
  private readonly abort = new AbortController();
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
    endpointsService.onQueued(() => this.wake(20));
    metrics.measureOldestUndelivered(() => db.read((m) => deliveries.oldestUndeliveredAt(m)));
  }

  onApplicationBootstrap(): void {
    if (!this.config.webhooks.dispatcherEnabled) return;
    this.running = true;
    this.schedule(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    this.running = false;
    clearTimeout(this.timer);
    await this.polling?.catch(() => undefined);
    this.abort.abort();
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
  }

  /** Polls soon (a write just queued deliveries in this process). */
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
    this.nextTickAt = Date.now() + delayMs;
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

  /** Claims what fits in the free slots and starts those attempts (without awaiting them). */
  private async poll(): Promise<void> {
    const free = this.config.webhooks.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const claimed = await this.claim(free);
    for (const c of claimed) this.start(c);
    // A full batch suggests more is due: look again at once rather than after the interval.
    if (claimed.length === free) this.pollAgain = true;
  }

  private async claim(free: number): Promise<Claimed[]> {
    const { endpointConcurrency, leaseSeconds } = this.config.webhooks;
    const busy = [...this.perEndpoint]
      .filter(([, n]) => n >= endpointConcurrency)
      .map(([id]) => id);
    const token = randomUUID();
    const now = new Date();
    return this.transaction(async (m) => {
      const due = await this.deliveries.due(m, now, free * CANDIDATES_PER_SLOT, busy);
      const taken: WebhookDelivery[] = [];
      const counts = new Map(this.perEndpoint);
      for (const d of due) {
        if (taken.length >= free) break;
        const n = counts.get(d.endpointId) ?? 0;
        if (n >= endpointConcurrency) continue;
        counts.set(d.endpointId, n + 1);
        taken.push(d);
      }
      const until = new Date(now.getTime() + leaseSeconds * 1000);
      await this.deliveries.lease(
        m,
        taken.map((d) => d.id),
        until,
        token,
      );
      // What each attempt sends, read in the same transaction: one wait for the database.
      const out: Claimed[] = [];
      const endpoints = new Map<string, WebhookEndpoint | null>();
      for (const d of taken) {
        const delivery = { ...d, leaseToken: token, nextAttemptAt: until };
        if (!endpoints.has(d.endpointId)) {
          endpoints.set(d.endpointId, await this.endpoints.findById(m, d.endpointId));
        }
        const endpoint = endpoints.get(d.endpointId);
        const event = await this.deliveries.event(m, d.eventId);
        if (endpoint && event) out.push({ delivery, endpoint, event });
      }
      return out;
    });
  }

  private start(c: Claimed): void {
    const endpointId = c.endpoint.id;
    this.perEndpoint.set(endpointId, (this.perEndpoint.get(endpointId) ?? 0) + 1);
    const done = this.attempt(c)
      .catch((err: unknown) =>
        this.logger.warn({ err, deliveryId: c.delivery.id }, 'webhook attempt failed to record'),
      )
      .finally(() => {
        this.inFlight.delete(c.delivery.id);
        const left = (this.perEndpoint.get(endpointId) ?? 1) - 1;
        if (left <= 0) this.perEndpoint.delete(endpointId);
        else this.perEndpoint.set(endpointId, left);
        // A slot is free: what waits need not wait for the interval.
        this.wake(0);
      });
    this.inFlight.set(c.delivery.id, { endpointId, done });
  }

  /** One attempt: send (unless the endpoint is gone or disabled), then record its outcome. */
  private async attempt({ delivery, endpoint, event }: Claimed): Promise<void> {
    const token = delivery.leaseToken!;
    if (endpoint.deletedAt !== null || endpoint.status !== 'enabled') {
      await this.transaction(async (m) => {
        if (!(await this.deliveries.held(m, delivery.id, token))) return;
        await this.deliveries.update(m, delivery.id, {
          status: 'canceled',
          nextAttemptAt: null,
          leaseToken: null,
        });
      });
      return;
    }
    const outcome = await sendWebhook({
      url: endpoint.url,
      id: event.id,
      body: JSON.stringify(toEventResponse(event)),
      secrets: this.endpointsService.signingSecrets(endpoint),
      timeoutMs: this.config.webhooks.timeoutSeconds * 1000,
      allowPrivateNetworks: this.config.webhooks.allowPrivateNetworks,
      signal: this.abort.signal,
    });
    if (outcome.aborted) {
      // Stopping: hand the delivery back as due now, not counted as an attempt.
      await this.transaction(async (m) => {
        if (!(await this.deliveries.held(m, delivery.id, token))) return;
        await this.deliveries.update(m, delivery.id, {
          nextAttemptAt: new Date(),
          leaseToken: null,
        });
      }).catch(() => undefined);
      return;
    }
    this.metrics.webhookAttempts.inc({
      outcome: outcome.succeeded
        ? 'succeeded'
        : outcome.statusCode === null
          ? 'network_error'
          : 'http_error',
    });
    await this.record(delivery, outcome);
  }

  /** The attempt's row, the delivery's next state and the endpoint's failing streak, together. */
  private async record(delivery: WebhookDelivery, outcome: SendOutcome): Promise<void> {
    const { retryScheduleSeconds, disableAfterSeconds } = this.config.webhooks;
    await this.transaction(async (m) => {
      // The endpoint row first, then the delivery: the order in which PATCH and DELETE of an
      // endpoint lock them too (before canceling its deliveries), so the two never deadlock.
      const endpoint = await this.endpoints.findById(m, delivery.endpointId, true);
      const held = await this.deliveries.held(m, delivery.id, delivery.leaseToken!);
      // The lease ran out and another claim took over: that claim records its own attempt.
      if (!held) return;
      const now = new Date();
      const attempt = held.attempts + 1;
      const delay = retryScheduleSeconds[attempt - 1];
      const nextRetryAt =
        outcome.succeeded || delay === undefined ? null : new Date(now.getTime() + delay * 1000);
      await this.deliveries.insertAttempt(m, {
        id: newId(ID_PREFIXES.webhookAttempt),
        deliveryId: held.id,
        endpointId: held.endpointId,
        eventId: held.eventId,
        attempt,
        succeeded: outcome.succeeded,
        statusCode: outcome.statusCode,
        durationMs: outcome.durationMs,
        error: outcome.error,
        nextRetryAt,
        createdAt: now,
      });
      await this.deliveries.update(m, held.id, {
        attempts: attempt,
        status: outcome.succeeded ? 'succeeded' : nextRetryAt ? 'pending' : 'failed',
        nextAttemptAt: nextRetryAt,
        leaseToken: null,
      });
      if (outcome.succeeded) {
        await this.endpoints.clearFailing(m, held.endpointId);
        return;
      }
      await this.endpoints.markFailing(m, held.endpointId, now);
      if (
        endpoint &&
        endpoint.status === 'enabled' &&
        endpoint.deletedAt === null &&
        now.getTime() - (endpoint.failingSince ?? now).getTime() >= disableAfterSeconds * 1000
      ) {
        await this.endpointsService.disableFailing(m, endpoint, now);
        this.logger.warn({ endpointId: endpoint.id }, 'webhook endpoint disabled after failing');
      }
    });
  }
}
