import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ID_PREFIXES, newId } from '../common/ids';
import { Database, FIRST } from '../database/database';
import { LeasePoller } from '../database/lease-poller';
import { EventRecord } from '../events/entities/event.entity';
import { selects } from '../events/event-types';
import { EventsService } from '../events/events.service';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveryJob } from './webhook-delivery.job';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

/** Events one fan-out claims at once. */
const FAN_OUT_BATCH = 200;

/**
 * Works out who receives each recorded event, a job of the LeasePoller, so that a write's cost
 * does not depend on how many endpoints listen: it claims the events due for fan-out (recorded,
 * `fan_out_at` set), and in one transaction queues one delivery, due now, for each enabled
 * endpoint of the event's organization and mode whose enabledEvents select it, and marks the
 * events done. A crash before that commit leaves the events' lease to expire; the deliveries'
 * unique (event, endpoint) key makes the second run queue nothing twice.
 */
@Injectable()
export class WebhookFanOut implements OnModuleInit {
  constructor(
    private readonly poller: LeasePoller,
    private readonly db: Database,
    private readonly events: EventsService,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly delivery: WebhookDeliveryJob,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const { dispatcherEnabled, pollIntervalMs, leaseSeconds } = this.config.webhooks;
    if (!dispatcherEnabled) return;
    this.poller.register<EventRecord[]>({
      name: 'webhook fan-out',
      intervalMs: pollIntervalMs,
      concurrency: 1,
      leaseMs: leaseSeconds * 1000,
      unit: FIRST,
      claim: async (m, now, _limit, leaseUntil) => {
        const due = await this.events.claimFanOut(m, now, FAN_OUT_BATCH, leaseUntil);
        return due.length > 0 ? [due] : [];
      },
      run: (events) => this.fanOut(events),
    });
  }

  private async fanOut(events: EventRecord[]): Promise<void> {
    const queued = await this.db.transaction((m) => this.queue(m, events), undefined, FIRST);
    if (queued > 0) this.delivery.wake();
  }

  /** Queues the events' deliveries and marks the events done, in `m`; says how many it queued. */
  private async queue(m: EntityManager, events: EventRecord[]): Promise<number> {
    const now = new Date();
    const deliveries: WebhookDelivery[] = [];
    // The enabled endpoints of each organization and mode, read once.
    const byTenant = new Map<
      string,
      Pick<WebhookEndpoint, 'id' | 'enabledEvents' | 'createdAt'>[]
    >();
    for (const event of events) {
      const key = `${event.organizationId}:${event.livemode}`;
      if (!byTenant.has(key)) byTenant.set(key, await this.endpoints.enabledFor(m, event));
      for (const e of byTenant.get(key)!) {
        // An endpoint receives the events recorded since it was created, as it would have had
        // their deliveries been queued in their write.
        if (e.createdAt > event.createdAt || !selects(e.enabledEvents, event.type)) continue;
        deliveries.push({
          id: newId(ID_PREFIXES.webhookDelivery),
          endpointId: e.id,
          eventId: event.id,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: now,
          leaseToken: null,
          createdAt: now,
          updatedAt: now,
        });
      }
    }
    await this.deliveries.insert(m, deliveries);
    await this.endpoints.dueBy(m, [...new Set(deliveries.map((d) => d.endpointId))], now);
    const eventIds = events.map((e) => e.id);
    await this.events.fannedOut(m, eventIds);
    return deliveries.length;
  }
}
