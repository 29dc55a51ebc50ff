import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { isDeepStrictEqual } from 'node:util';
import { EntityManager } from 'typeorm';
import { ValidationFailedError, NotFoundError } from '../common/errors';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import { Metrics } from '../platform/metrics';
import { Actor, RequestRef, Tenant } from '../platform/caller';
import { EventListResponse, EventResponse, toEventResponse } from './dto/event.response';
import { ListEventsQueryDto } from './dto/list-events-query.dto';
import { EventRecord } from './entities/event.entity';
import { EventType, resourceOf, typesOfPrefix } from './event-types';
import { EventsRepository } from './events.repository';

/** What a service hands to `EventsService.record` inside its write transaction. */
export interface RecordEventInput {
  principal: Tenant;
  type: EventType;
  /** The resource exactly as GET shows it after the change (its response object). */
  object: object;
  /** The old value of each changed field, on updates (see `EventsService.changes`). */
  previousAttributes?: Record<string, unknown> | null;
  request: RequestRef | null;
  actor: Actor;
}

/** Fields that never go into an event, whatever a caller passes (docs/api.md §5.6). */
const NEVER_RECORDED = ['secret', 'accountNumberEncrypted'];
/** Changes of these alone are not changes (they follow every change). */
const NOT_ATTRIBUTES = new Set(['updatedAt']);
/** How many events one retention transaction deletes, so no request waits long behind it. */
export const SWEEP_BATCH = 500;

/**
 * Events (docs/api.md §5.6): recorded in the transaction of the change they describe (a
 * transactional outbox), read by `GET /v0/events`, deleted after EVENT_RETENTION_DAYS.
 */
@Injectable()
export class EventsService implements OnApplicationBootstrap, OnModuleDestroy {
  private sweepTimer?: NodeJS.Timeout;
  private sweeping?: Promise<number>;

  constructor(
    private readonly db: Database,
    private readonly events: EventsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly logger: PinoLogger,
    private readonly metrics: Metrics,
  ) {
    logger.setContext('Events');
  }

  /**
   * Records one event in the caller's write transaction `m`, inserted there and then: it commits
   * with the write or not at all. Call it once per changed resource, after the change, with the
   * resource's response. The event is due for the webhooks' fan-out at once (`fanOutAt`): which
   * endpoints receive it is background work (webhooks/webhook-fan-out.ts), not the write's.
   */
  async record(m: EntityManager, input: RecordEventInput): Promise<EventRecord> {
    const object: Record<string, unknown> = { ...(input.object as Record<string, unknown>) };
    for (const key of NEVER_RECORDED) delete object[key];
    const now = new Date();
    const event: EventRecord = {
      id: newId(ID_PREFIXES.event),
      organizationId: input.principal.organizationId,
      livemode: input.principal.livemode,
      type: input.type,
      resource: resourceOf(input.type),
      data: { object, previousAttributes: input.previousAttributes ?? null },
      requestId: input.request?.id ?? null,
      idempotencyKey: input.request?.idempotencyKey ?? null,
      actorType: input.actor.type,
      actorId: input.actor.id,
      createdAt: now,
      fanOutAt: now,
    };
    await this.events.insert(m, event);
    this.metrics.eventsRecorded.inc({ type: event.type });
    return event;
  }

  /**
   * The fan-out's claim (a LeasePoller job of the webhooks module): up to `limit` events due for
   * fan-out at `now`, oldest first, their lease moved to `leaseUntil`.
   */
  claimFanOut(
    m: EntityManager,
    now: Date,
    limit: number,
    leaseUntil: Date,
  ): Promise<EventRecord[]> {
    return this.events.claimFanOut(m, now, limit, leaseUntil);
  }

  /** The fan-out of these events is done (their deliveries are queued in `m`'s transaction). */
  fannedOut(m: EntityManager, ids: string[]): Promise<void> {
    return this.events.clearFanOut(m, ids);
  }

  /**
   * Records the update of one resource from its view before and after the change, with the old
   * values as `previousAttributes`; records nothing when no field a client sees changed.
   */
  async recordUpdate(
    m: EntityManager,
    input: Omit<RecordEventInput, 'object' | 'previousAttributes'>,
    before: object,
    after: object,
  ): Promise<void> {
    const previousAttributes = EventsService.changes(before, after);
    if (previousAttributes) await this.record(m, { ...input, object: after, previousAttributes });
  }

  /**
   * The `previousAttributes` of an update: the old value of every top-level field whose value
   * changed (updatedAt aside), or null when nothing did: a no-op write records no event.
   */
  static changes(before: object, after: object): Record<string, unknown> | null {
    const old = before as Record<string, unknown>;
    const next = after as Record<string, unknown>;
    const changed: Record<string, unknown> = {};
    for (const key of Object.keys(next)) {
      if (NOT_ATTRIBUTES.has(key) || NEVER_RECORDED.includes(key)) continue;
      if (!isDeepStrictEqual(old[key], next[key])) changed[key] = old[key] ?? null;
    }
    return Object.keys(changed).length > 0 ? changed : null;
  }

  async get(tenant: Tenant, id: string): Promise<EventResponse> {
    const event = isIdOf(ID_PREFIXES.event, id)
      ? await this.db.read((m) => this.events.findOne(m, tenant, id))
      : null;
    if (!event) throw new NotFoundError('event', id);
    return toEventResponse(event);
  }

  async list(tenant: Tenant, query: ListEventsQueryDto): Promise<EventListResponse> {
    const newer = query.endingBefore !== undefined;
    const cursorId = query.endingBefore ?? query.startingAfter;
    const rows = await this.db.read(async (m) => {
      const cursor = cursorId === undefined ? null : await this.events.findOne(m, tenant, cursorId);
      if (cursorId !== undefined && !cursor) {
        throw ValidationFailedError.field(
          newer ? 'endingBefore' : 'startingAfter',
          'unknown_cursor',
          'must be the id of one of your events (in this mode) that has not expired',
        );
      }
      return this.events.page(m, {
        tenant,
        limit: query.limit + 1,
        // A prefix (`plan.*`) reads each of its types (the DTO takes only known prefixes).
        ...(query.type?.endsWith('.*')
          ? { types: typesOfPrefix(query.type) }
          : { type: query.type }),
        cursor: cursor ? { ...cursor, side: newer ? 'newer' : 'older' } : undefined,
      });
    });
    // The rows come nearest to the cursor first: the page is the first `limit`, and one more
    // means more follow on that side. An endingBefore page read oldest first is turned around.
    const page = rows.slice(0, query.limit);
    if (newer) page.reverse();
    return {
      data: page.map(toEventResponse),
      pagination: { limit: query.limit, hasMore: rows.length > query.limit },
    };
  }

  onApplicationBootstrap(): void {
    this.sweepTimer = setInterval(
      () =>
        void this.sweep().catch((err: unknown) => this.logger.warn({ err }, 'event sweep failed')),
      this.config.events.sweepIntervalSeconds * 1000,
    );
    this.sweepTimer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.sweeping?.catch(() => undefined);
  }

  /**
   * Deletes the events older than EVENT_RETENTION_DAYS, SWEEP_BATCH per transaction, so requests
   * wait at most one small batch; their webhook deliveries and attempts go with them (the foreign
   * keys' ON DELETE CASCADE). Returns how many.
   */
  sweep(now = new Date()): Promise<number> {
    this.sweeping ??= this.sweepAll(now).finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepAll(now: Date): Promise<number> {
    const cutoff = new Date(now.getTime() - this.config.events.retentionDays * 86_400_000);
    let deleted = 0;
    for (;;) {
      const count = await this.db.transaction((m) =>
        this.events.deleteOlderThan(m, cutoff, SWEEP_BATCH),
      );
      deleted += count;
      if (count < SWEEP_BATCH) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (deleted > 0) this.logger.info({ deleted }, 'expired events deleted');
    return deleted;
  }
}
