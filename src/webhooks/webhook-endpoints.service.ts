import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { toListResponse, ListResponse } from '../common/dto/list-query.dto';
import { assertIfMatch } from '../platform/etag';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { mergeMetadata } from '../common/metadata';
import { normalizeDescription } from '../common/text';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import { Caller, SYSTEM, Tenant } from '../events/caller';
import { EventRecord } from '../events/entities/event.entity';
import { selects } from '../events/event-types';
import { EventsService } from '../events/events.service';
import { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { ListWebhookDeliveriesQueryDto } from './dto/list-webhook-deliveries-query.dto';
import { UpdateWebhookEndpointDto } from './dto/update-webhook-endpoint.dto';
import {
  DeletedWebhookEndpointResponse,
  WebhookDeliveryAttemptResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
  toWebhookDeliveryAttemptResponse,
  toWebhookEndpointResponse,
} from './dto/webhook-endpoint.response';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { MAX_URL_LENGTH, WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { ListQueryDto } from '../common/dto/list-query.dto';
import { checkEnabledEvents } from './enabled-events';
import { SecretBox, newSigningSecret } from './secret-box';
import {
  checkUrl,
  hostOf,
  resolvePublic,
  unresolvedHostProblem,
  urlTextProblem,
} from './url-policy';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { InvalidWebhookUrlError } from './webhooks.errors';

/** How long the secret before a rotation keeps signing (docs/api.md §5.7). */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
/** Opened signing secrets kept in memory at most (one or two per endpoint that receives). */
const OPENED_SECRETS_KEPT = 10_000;

/** Webhook endpoints (docs/api.md §5.7): their rules, and the queueing of deliveries. */
@Injectable()
export class WebhookEndpointsService {
  private readonly secrets: SecretBox;
  private readonly wakeListeners: (() => void)[] = [];
  private readonly changeListeners: ((endpointId: string) => void)[] = [];
  /** Opened signing secrets by sealed value (see `signingSecrets`). */
  private readonly openedSecrets = new Map<string, string>();

  constructor(
    private readonly db: Database,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly events: EventsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.secrets = new SecretBox(config.encryptionKey);
    // The endpoints of the first event's organization and mode are read with the events' INSERT
    // (one statement on PostgreSQL); queueDeliveries finds them remembered.
    events.onRecorded({
      readAlong: (recorded) => this.endpoints.enabledRead(tenantOf(recorded[0])),
      recorded: (m, recorded, rows) => {
        if (rows) this.endpoints.rememberEnabled(m, tenantOf(recorded[0]), rows);
        return this.queueDeliveries(m, recorded);
      },
    });
    events.onSweep((m, ids) => this.deliveries.deleteForEvents(m, ids));
  }

  /** Called when deliveries were queued (the dispatcher wakes up rather than wait for its poll). */
  onQueued(listener: () => void): void {
    this.wakeListeners.push(listener);
  }

  /**
   * Called once a change to an endpoint has committed (PATCH, DELETE, rotateSecret): the
   * dispatcher takes back what it holds for it (WebhookDispatcher.changedHere).
   */
  onChanged(listener: (endpointId: string) => void): void {
    this.changeListeners.push(listener);
  }

  private changed<T>(endpointId: string, result: T): T {
    for (const listener of this.changeListeners) listener(endpointId);
    return result;
  }

  /**
   * The signing secrets of an endpoint now: the current one, and the previous one during its
   * grace period. Each is opened (AES-GCM) once and kept, keyed by the sealed value, so a
   * rotation or a new endpoint simply misses the cache.
   */
  signingSecrets(endpoint: WebhookEndpoint, now = new Date()): string[] {
    const secrets = [this.opened(endpoint.id, endpoint.secretEncrypted)];
    if (
      endpoint.previousSecretEncrypted !== null &&
      endpoint.previousSecretExpiresAt !== null &&
      endpoint.previousSecretExpiresAt > now
    ) {
      secrets.push(this.opened(endpoint.id, endpoint.previousSecretEncrypted));
    }
    return secrets;
  }

  private opened(endpointId: string, sealed: string): string {
    let secret = this.openedSecrets.get(sealed);
    if (secret === undefined) {
      if (this.openedSecrets.size >= OPENED_SECRETS_KEPT) this.openedSecrets.clear();
      secret = this.secrets.open(sealed, endpointId);
      this.openedSecrets.set(sealed, secret);
    }
    return secret;
  }

  async create(
    caller: Caller,
    dto: CreateWebhookEndpointDto,
  ): Promise<WebhookEndpointWithSecretResponse> {
    const enabledEvents = checkEnabledEvents(dto.enabledEvents);
    const url = await this.checkUrl(dto.url);
    const id = newId(ID_PREFIXES.webhookEndpoint);
    const secret = newSigningSecret();
    const now = new Date();
    const endpoint: WebhookEndpoint = {
      id,
      organizationId: caller.principal.organizationId,
      livemode: caller.principal.livemode,
      url,
      enabledEvents,
      description: normalizeDescription(dto.description),
      metadata: dto.metadata ?? {},
      status: 'enabled',
      secretEncrypted: this.secrets.seal(secret, id),
      previousSecretEncrypted: null,
      previousSecretExpiresAt: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    return this.db.transaction(async (m) => {
      await this.endpoints.insert(m, endpoint);
      const response = toWebhookEndpointResponse(endpoint);
      await this.events.record(m, { ...caller, type: 'webhookEndpoint.created', object: response });
      return { ...response, secret };
    }, caller.commit);
  }

  async get(tenant: Tenant, id: string): Promise<WebhookEndpointResponse> {
    return toWebhookEndpointResponse(await this.db.read((m) => this.find(m, tenant, id)));
  }

  async list(tenant: Tenant, query: ListQueryDto): Promise<ListResponse<WebhookEndpointResponse>> {
    const [rows, total] = await this.db.snapshot((m) =>
      this.endpoints.page(m, tenant, query.limit, query.offset),
    );
    return toListResponse(rows.map(toWebhookEndpointResponse), total, query);
  }

  /**
   * URL, events, description, metadata and status. Nothing is written, and no event recorded,
   * when nothing changes. Disabling cancels what the endpoint still had to receive.
   */
  async update(
    caller: Caller,
    id: string,
    dto: UpdateWebhookEndpointDto,
    ifMatch?: string,
  ): Promise<WebhookEndpointResponse> {
    const enabledEvents =
      dto.enabledEvents === undefined ? undefined : checkEnabledEvents(dto.enabledEvents);
    const url = dto.url === undefined ? undefined : await this.checkUrl(dto.url);
    const updated = await this.db.transaction(async (m) => {
      const endpoint = await this.find(m, caller.principal, id, true);
      const before = toWebhookEndpointResponse(endpoint);
      assertIfMatch(ifMatch, before);
      const next: WebhookEndpoint = {
        ...endpoint,
        url: url ?? endpoint.url,
        enabledEvents: enabledEvents ?? endpoint.enabledEvents,
        description:
          dto.description === undefined
            ? endpoint.description
            : normalizeDescription(dto.description),
        metadata: mergeMetadata(endpoint.metadata, dto.metadata),
        status: dto.status ?? endpoint.status,
      };
      const previousAttributes = EventsService.changes(before, toWebhookEndpointResponse(next));
      if (previousAttributes === null) return before;
      next.updatedAt = new Date();
      if (next.status === 'enabled' && endpoint.status === 'disabled') next.failingSince = null;
      await this.endpoints.update(m, id, {
        url: next.url,
        enabledEvents: next.enabledEvents,
        description: next.description,
        metadata: next.metadata,
        status: next.status,
        failingSince: next.failingSince,
        updatedAt: next.updatedAt,
      });
      if (next.status === 'disabled') await this.deliveries.cancelPending(m, id);
      const after = toWebhookEndpointResponse(next);
      await this.events.record(m, {
        ...caller,
        type: 'webhookEndpoint.updated',
        object: after,
        previousAttributes,
      });
      return after;
    }, caller.commit);
    return this.changed(id, updated);
  }

  /** A soft delete: the endpoint answers 404 from now on and receives nothing more. */
  async remove(
    caller: Caller,
    id: string,
    ifMatch?: string,
  ): Promise<DeletedWebhookEndpointResponse> {
    const deleted = await this.db.transaction(async (m) => {
      const endpoint = await this.find(m, caller.principal, id, true);
      const response = toWebhookEndpointResponse(endpoint);
      assertIfMatch(ifMatch, response);
      const now = new Date();
      await this.endpoints.update(m, id, { deletedAt: now, updatedAt: now });
      await this.deliveries.cancelPending(m, id);
      await this.events.record(m, { ...caller, type: 'webhookEndpoint.deleted', object: response });
      return { id, object: 'webhookEndpoint', deleted: true } as const;
    }, caller.commit);
    return this.changed(id, deleted);
  }

  /**
   * A new secret, shown once; the one it replaces keeps signing for 24 hours (both signatures
   * are sent), so receivers can switch without losing a delivery. The endpoint changes, so
   * `updatedAt` moves and `webhookEndpoint.updated` is recorded with it; of what GET shows only
   * `updatedAt` changes, so that is its previousAttributes (no secret is ever recorded).
   */
  async rotateSecret(caller: Caller, id: string): Promise<WebhookEndpointWithSecretResponse> {
    const rotated = await this.db.transaction(async (m) => {
      const endpoint = await this.find(m, caller.principal, id, true);
      const before = toWebhookEndpointResponse(endpoint);
      const secret = newSigningSecret();
      const now = new Date();
      await this.endpoints.update(m, id, {
        secretEncrypted: this.secrets.seal(secret, id),
        previousSecretEncrypted: endpoint.secretEncrypted,
        previousSecretExpiresAt: new Date(now.getTime() + ROTATION_GRACE_MS),
        updatedAt: now,
      });
      const after = toWebhookEndpointResponse({ ...endpoint, updatedAt: now });
      await this.events.record(m, {
        ...caller,
        type: 'webhookEndpoint.updated',
        object: after,
        previousAttributes: { updatedAt: before.updatedAt },
      });
      return { ...after, secret };
    }, caller.commit);
    return this.changed(id, rotated);
  }

  async deliveryAttempts(
    tenant: Tenant,
    id: string,
    query: ListWebhookDeliveriesQueryDto,
  ): Promise<ListResponse<WebhookDeliveryAttemptResponse>> {
    const [rows, total] = await this.db.snapshot(async (m) => {
      const endpoint = await this.find(m, tenant, id);
      return this.deliveries.attemptsPage(
        m,
        endpoint.id,
        { eventId: query.eventId, succeeded: query.succeeded },
        query.limit,
        query.offset,
      );
    });
    return toListResponse(
      rows.map((a) => toWebhookDeliveryAttemptResponse(a, tenant.livemode)),
      total,
      query,
    );
  }

  /**
   * Disables an endpoint that has failed every attempt for WEBHOOK_DISABLE_AFTER_SECONDS, in the
   * dispatcher's transaction, with a `webhookEndpoint.updated` event by the system.
   */
  async disableFailing(m: EntityManager, endpoint: WebhookEndpoint, now: Date): Promise<void> {
    const before = toWebhookEndpointResponse(endpoint);
    const disabled = { ...endpoint, status: 'disabled' as const, updatedAt: now };
    await this.endpoints.update(m, endpoint.id, { status: 'disabled', updatedAt: now });
    await this.deliveries.cancelPending(m, endpoint.id);
    const after = toWebhookEndpointResponse(disabled);
    await this.events.record(m, {
      principal: { organizationId: endpoint.organizationId, livemode: endpoint.livemode },
      type: 'webhookEndpoint.updated',
      object: after,
      previousAttributes: EventsService.changes(before, after),
      request: null,
      actor: SYSTEM,
    });
  }

  /**
   * In the transaction that records `events` (a write's events, together): one delivery for
   * each enabled endpoint of an event's organization and mode whose enabledEvents select it, due
   * now, inserted in one statement. The endpoints are read once per transaction and organization
   * and mode (see WebhookEndpointsRepository).
   */
  private async queueDeliveries(m: EntityManager, events: EventRecord[]): Promise<void> {
    const now = new Date();
    const deliveries: WebhookDelivery[] = [];
    for (const event of events) {
      const endpoints = await this.endpoints.enabledFor(m, tenantOf(event));
      for (const e of endpoints) {
        if (!selects(e.enabledEvents, event.type)) continue;
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
    if (deliveries.length === 0) return;
    await this.deliveries.insert(m, deliveries);
    for (const wake of this.wakeListeners) wake();
  }

  /**
   * https:// on public addresses only, resolved now (again at each delivery), and written as the
   * URL that is called. Returns the URL to store: the one called (url-policy.ts).
   */
  private async checkUrl(url: string): Promise<string> {
    const allow = this.config.webhooks.allowPrivateNetworks;
    const hint = this.config.env !== 'production';
    const checked = checkUrl(url, allow, hint);
    if (checked.url === null) throw new InvalidWebhookUrlError(checked.problem);
    const textProblem = urlTextProblem(url);
    if (textProblem !== null) throw new InvalidWebhookUrlError(textProblem);
    // The URL as it is called: its WHATWG serialization.
    const called = checked.url.href;
    if (called.length > MAX_URL_LENGTH) {
      throw ValidationFailedError.field(
        'url',
        'too_long',
        `must be at most ${MAX_URL_LENGTH} characters as it is called, with characters such as "<", ">" and "é" percent-encoded (this one is ${called.length})`,
      );
    }
    if (allow) return called;
    const host = hostOf(checked.url);
    try {
      await resolvePublic(host);
    } catch {
      // Never what the name resolved to, nor whether it resolved (url-policy.ts).
      throw new InvalidWebhookUrlError(unresolvedHostProblem(hint));
    }
    return called;
  }

  /** A live endpoint of the caller's organization and mode, or 404 (also for a malformed id). */
  private async find(
    m: EntityManager,
    tenant: Tenant,
    id: string,
    forUpdate = false,
  ): Promise<WebhookEndpoint> {
    const endpoint = isIdOf(ID_PREFIXES.webhookEndpoint, id)
      ? await this.endpoints.findLive(m, tenant, id, forUpdate)
      : null;
    if (!endpoint) throw new NotFoundError('webhookEndpoint', id);
    return endpoint;
  }
}

/** The organization and mode an event belongs to. */
function tenantOf(event: EventRecord): Tenant {
  return { organizationId: event.organizationId, livemode: event.livemode };
}
