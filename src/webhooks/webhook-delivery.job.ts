import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { Webhook } from 'standardwebhooks';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ID_PREFIXES, newId } from '../common/ids';
import { Database, FIRST } from '../database/database';
import { LeaseJobHandle, LeasePoller } from '../database/lease-poller';
import { Metrics } from '../platform/metrics';
import { toEventResponse } from '../events/dto/event.response';
import { WebhookAttempt } from './entities/webhook-attempt.entity';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { SendOutcome, WebhookSender } from './webhook-sender';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/** A leased delivery and what its attempt sends. */
interface Claimed {
  delivery: WebhookDelivery;
  endpoint: WebhookEndpoint;
  /** The event as GET shows it: the exact JSON text sent and signed. */
  body: string;
}

/**
 * Delivers webhooks, a job of the LeasePoller on the main thread: at most WEBHOOK_CONCURRENCY
 * attempts at once in this instance, WEBHOOK_ENDPOINT_CONCURRENCY to one endpoint, and half of
 * WEBHOOK_CONCURRENCY for one organization, so that one organization's hanging endpoints never
 * hold every slot.
 *
 * The claim (one transaction, in the lane that does not queue behind requests) visits the
 * endpoints whose deliveries may be due, longest waiting first, and leases a few of each one's
 * oldest due deliveries; a visited endpoint with more due goes to the back of the line. So one
 * endpoint's or organization's backlog never hides another's delivery. Each attempt is recorded
 * in one transaction under the claim's lease token: a late end of an expired lease changes
 * nothing, and a process killed mid-attempt leaves the delivery due again when its lease ends.
 */
@Injectable()
export class WebhookDeliveryJob implements OnModuleInit {
  private handle?: LeaseJobHandle;
  private readonly sender: WebhookSender;
  private readonly abort = new AbortController();
  /** Attempts in flight here, by endpoint and by organization. */
  private readonly busy = { endpoints: new Map<string, number>(), orgs: new Map<string, number>() };
  private readonly orgConcurrency: number;

  constructor(
    private readonly poller: LeasePoller,
    private readonly db: Database,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly endpointsService: WebhookEndpointsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly logger: PinoLogger,
    private readonly metrics: Metrics,
  ) {
    logger.setContext('WebhookDelivery');
    const { timeoutSeconds, allowPrivateNetworks, concurrency } = config.webhooks;
    this.sender = new WebhookSender({ timeoutMs: timeoutSeconds * 1000, allowPrivateNetworks });
    this.orgConcurrency = Math.max(1, Math.floor(concurrency / 2));
    metrics.measureOldestUndelivered(() => db.read((m) => deliveries.oldestUndeliveredAt(m)));
  }

  onModuleInit(): void {
    const { dispatcherEnabled, pollIntervalMs, concurrency, leaseSeconds } = this.config.webhooks;
    if (!dispatcherEnabled) return;
    this.handle = this.poller.register<Claimed>({
      name: 'webhook delivery',
      intervalMs: pollIntervalMs,
      concurrency,
      leaseMs: leaseSeconds * 1000,
      unit: FIRST,
      claim: (...args) => this.claim(...args),
      run: (c) => this.attempt(c),
      stopping: () => {
        this.abort.abort();
        this.sender.close();
      },
    });
  }

  /** Polls now (deliveries were just queued). */
  wake(): void {
    this.handle?.wake();
  }

  private async claim(m: EntityManager, now: Date, limit: number, until: Date): Promise<Claimed[]> {
    // Index searches however stale the statistics (a burst outruns PostgreSQL's autovacuum).
    await this.db.indexSearchesOnly(m);
    const { endpointConcurrency } = this.config.webhooks;
    const count = (map: Map<string, number>, key: string) => map.get(key) ?? 0;
    const full = (map: Map<string, number>, most: number) =>
      [...map].filter(([, n]) => n >= most).map(([key]) => key);
    const due = await this.endpoints.due(m, now, limit, {
      endpoints: full(this.busy.endpoints, endpointConcurrency),
      organizations: full(this.busy.orgs, this.orgConcurrency),
    });
    const token = randomUUID();
    const orgs = new Map(this.busy.orgs);
    const claimed: Omit<Claimed, 'body'>[] = [];
    for (const endpoint of due) {
      const org = endpoint.organizationId;
      const room = Math.min(
        limit - claimed.length,
        endpointConcurrency - count(this.busy.endpoints, endpoint.id),
        this.orgConcurrency - count(orgs, org),
      );
      if (endpoint.deletedAt !== null || endpoint.status !== 'enabled') {
        // Queued by a fan-out that raced its disabling: canceled as the rest.
        await this.deliveries.cancelPending(m, endpoint.id);
      } else if (room > 0) {
        const taken = await this.deliveries.claim(m, endpoint.id, now, room, { until, token });
        for (const delivery of taken) claimed.push({ delivery, endpoint });
        orgs.set(org, count(orgs, org) + taken.length);
      }
      // Visited: back of the line if it has more due, else at its next due time.
      const soonest = await this.deliveries.soonestDue(m, endpoint.id);
      const next = soonest && soonest < now ? now : soonest;
      await this.endpoints.setNextDelivery(m, endpoint.id, next);
    }
    // Each event's body once, however many endpoints receive it. A claimed delivery's event is
    // there: the foreign key deletes the delivery with it.
    const ids = [...new Set(claimed.map((c) => c.delivery.eventId))];
    const events = await this.deliveries.events(m, ids);
    const bodies = new Map(events.map((e) => [e.id, JSON.stringify(toEventResponse(e))]));
    return claimed.map((c) => ({ ...c, body: bodies.get(c.delivery.eventId)! }));
  }

  /** One attempt: POST the signed event (SSRF rules checked again), then record its outcome. */
  private async attempt(c: Claimed): Promise<void> {
    this.hold(c.endpoint, 1);
    try {
      const outcome = await this.sender.send({
        url: c.endpoint.url,
        id: c.delivery.eventId,
        body: c.body,
        signers: this.endpointsService.signingSecrets(c.endpoint).map((s) => new Webhook(s)),
        signal: this.abort.signal,
      });
      if (outcome.aborted) return await this.handBack(c);
      this.metrics.webhookAttempts.inc({
        outcome: outcome.succeeded
          ? 'succeeded'
          : outcome.statusCode
            ? 'http_error'
            : 'network_error',
      });
      const at = new Date();
      await this.db.transaction(
        (m) =>
          outcome.succeeded
            ? this.recordSuccess(m, c, outcome, at)
            : this.recordFailure(m, c, outcome, at),
        undefined,
        FIRST,
      );
    } finally {
      this.hold(c.endpoint, -1);
    }
  }

  private hold(endpoint: WebhookEndpoint, by: number): void {
    for (const [map, key] of [
      [this.busy.endpoints, endpoint.id],
      [this.busy.orgs, endpoint.organizationId],
    ] as const) {
      const n = (map.get(key) ?? 0) + by;
      if (n > 0) map.set(key, n);
      else map.delete(key);
    }
  }

  /**
   * A success, the common case, locks no endpoint row (so the claims and the other attempts of
   * its endpoint do not queue behind it): the endpoint's failing streak ends, if it has one (the
   * endpoint is locked only then, before the delivery, as `recordFailure` and PATCH lock them), and the
   * delivery is done, if the claim's lease is still its own (else another claim took over and
   * records its own attempt).
   */
  private async recordSuccess(
    m: EntityManager,
    c: Claimed,
    outcome: SendOutcome,
    at: Date,
  ): Promise<void> {
    const { delivery } = c;
    await this.endpoints.stopFailing(m, c.endpoint.id);
    const done = { attempts: delivery.attempts + 1, status: 'succeeded' as const };
    if (!(await this.deliveries.finish(m, delivery, { ...done, nextAttemptAt: null }))) return;
    await this.deliveries.insertAttempt(m, attemptRow(delivery, done.attempts, outcome, null, at));
  }

  /**
   * A failed attempt: its row, its delivery's next state (WEBHOOK_RETRY_SCHEDULE) and its
   * endpoint's failing streak, under the claim's lease; an endpoint failing every attempt for
   * WEBHOOK_DISABLE_AFTER_SECONDS is disabled. The endpoint is locked before the delivery, in the
   * order PATCH and DELETE lock them, so the two never deadlock.
   */
  private async recordFailure(
    m: EntityManager,
    c: Claimed,
    outcome: SendOutcome,
    at: Date,
  ): Promise<void> {
    const { retryScheduleSeconds, disableAfterSeconds } = this.config.webhooks;
    const endpoint = await this.endpoints.findById(m, c.endpoint.id, true);
    const delivery = await this.deliveries.lock(m, c.delivery.id);
    // The lease ran out and another claim took over: that claim records its own attempt.
    if (!endpoint || !delivery || delivery.leaseToken !== c.delivery.leaseToken) return;
    const attempt = delivery.attempts + 1;
    const live =
      endpoint.deletedAt === null &&
      endpoint.status === 'enabled' &&
      delivery.status !== 'canceled';
    const failingSince = endpoint.failingSince ?? at;
    const disabling = live && at.getTime() - failingSince.getTime() >= disableAfterSeconds * 1000;
    const delay = !live || disabling ? undefined : retryScheduleSeconds[attempt - 1];
    const nextRetryAt = delay === undefined ? null : new Date(at.getTime() + delay * 1000);
    await this.deliveries.insertAttempt(m, attemptRow(delivery, attempt, outcome, nextRetryAt, at));
    await this.deliveries.update(m, delivery.id, {
      attempts: attempt,
      status: nextRetryAt ? 'pending' : live && !disabling ? 'failed' : 'canceled',
      nextAttemptAt: nextRetryAt,
      leaseToken: null,
    });
    if (endpoint.failingSince === null) {
      await this.endpoints.update(m, endpoint, endpoint.id, { failingSince });
    }
    if (nextRetryAt) await this.endpoints.dueBy(m, [endpoint.id], nextRetryAt);
    if (disabling) {
      await this.endpointsService.disableFailing(m, { ...endpoint, failingSince }, at);
      this.logger.warn({ endpointId: endpoint.id }, 'webhook endpoint disabled after failing');
    }
  }

  /** Stopping: the delivery is due again now for any instance, not counted as an attempt. */
  private async handBack(c: Claimed): Promise<void> {
    const now = new Date();
    await this.db.transaction(
      async (m) => {
        await this.deliveries.handBack(m, c.delivery.id, c.delivery.leaseToken!, now);
        await this.endpoints.dueBy(m, [c.endpoint.id], now);
      },
      undefined,
      FIRST,
    );
  }
}

function attemptRow(
  delivery: WebhookDelivery,
  attempt: number,
  outcome: SendOutcome,
  nextRetryAt: Date | null,
  at: Date,
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
