import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { ListQueryDto, ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { assertIfMatch } from '../common/etag';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { mergeMetadata } from '../common/metadata';
import { normalizeDescription } from '../common/text';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Database } from '../database/database';
import { Caller, SYSTEM, Tenant } from '../platform/caller';
import { EventsService } from '../events/events.service';
import { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { UpdateWebhookEndpointDto } from './dto/update-webhook-endpoint.dto';
import { ListWebhookDeliveriesQueryDto } from './dto/list-webhook-deliveries-query.dto';
import {
  DeletedWebhookEndpointResponse,
  WebhookDeliveryAttemptResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
  toWebhookDeliveryAttemptResponse,
  toWebhookEndpointResponse,
} from './dto/webhook-endpoint.response';
import { MAX_URL_LENGTH, WebhookEndpoint } from './entities/webhook-endpoint.entity';
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
import { InvalidWebhookUrlError, WebhookEndpointLimitError } from './webhooks.errors';
import { lockedUpdate } from '../database/locked-update';

/** The most live endpoints (enabled and disabled) of one organization in one mode. */
export const MAX_ENDPOINTS = 16;
/** How long the secret before a rotation keeps signing (docs/api.md §5.7). */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
/** Opened signing secrets kept in memory at most (one or two per endpoint that receives). */
const OPENED_SECRETS_KEPT = 10_000;

/** Webhook endpoints (docs/api.md §5.7): their rules, their signing secrets and their attempts. */
@Injectable()
export class WebhookEndpointsService {
  private readonly secrets: SecretBox;
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
  }

  /**
   * The signing secrets of an endpoint now: the current one, and the previous one during its
   * grace period. Each is opened (AES-GCM) once and kept, keyed by the sealed value, so a
   * rotation or a new endpoint simply misses the cache.
   */
  signingSecrets(endpoint: WebhookEndpoint, now = new Date()): string[] {
    const { previousSecretEncrypted: previous, previousSecretExpiresAt: until } = endpoint;
    const secrets = [this.opened(endpoint.id, endpoint.secretEncrypted)];
    if (previous !== null && until !== null && until > now) {
      secrets.push(this.opened(endpoint.id, previous));
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
      nextDeliveryAt: null,
    };
    return this.db.transaction(async (m) => {
      // The organization's row is locked, so that two creates never both pass the limit.
      await this.endpoints.lockOrganization(m, caller.principal);
      if ((await this.endpoints.countLive(m, caller.principal)) >= MAX_ENDPOINTS) {
        throw new WebhookEndpointLimitError(MAX_ENDPOINTS);
      }
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

  /** The attempts made to one of the tenant's live endpoints, newest first. */
  async attempts(
    tenant: Tenant,
    id: string,
    query: ListWebhookDeliveriesQueryDto,
  ): Promise<ListResponse<WebhookDeliveryAttemptResponse>> {
    const [rows, total] = await this.db.snapshot(async (m) =>
      this.deliveries.attemptsPage(m, (await this.find(m, tenant, id)).id, query),
    );
    const data = rows.map((a) => toWebhookDeliveryAttemptResponse(a, tenant.livemode));
    return toListResponse(data, total, query);
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
    return this.db.transaction(
      (m) =>
        lockedUpdate<WebhookEndpoint, WebhookEndpointResponse>({
          load: () => this.endpoints.findLive(m, caller.principal, id, true),
          notFound: () => new NotFoundError('webhookEndpoint', id),
          view: toWebhookEndpointResponse,
          ifMatch,
          changes: (endpoint) => ({
            url,
            enabledEvents,
            description:
              dto.description === undefined ? undefined : normalizeDescription(dto.description),
            metadata: mergeMetadata(endpoint.metadata, dto.metadata),
            status: dto.status,
            // Enabled again: its failing streak starts over.
            failingSince:
              dto.status === 'enabled' && endpoint.status === 'disabled' ? null : undefined,
          }),
          write: async (endpoint, changed) => {
            await this.endpoints.update(m, caller.principal, id, changed);
            if (changed.status === 'disabled') await this.deliveries.cancelPending(m, id);
          },
          written: (before, after) =>
            this.events.recordUpdate(
              m,
              { ...caller, type: 'webhookEndpoint.updated' },
              before,
              after,
            ),
        }),
      caller.commit,
    );
  }

  /** A soft delete: the endpoint answers 404 from now on and receives nothing more. */
  async remove(
    caller: Caller,
    id: string,
    ifMatch?: string,
  ): Promise<DeletedWebhookEndpointResponse> {
    return this.db.transaction(async (m) => {
      const endpoint = await this.find(m, caller.principal, id, true);
      const response = toWebhookEndpointResponse(endpoint);
      assertIfMatch(ifMatch, response);
      const now = new Date();
      await this.endpoints.update(m, caller.principal, id, { deletedAt: now, updatedAt: now });
      await this.deliveries.cancelPending(m, id);
      await this.events.record(m, { ...caller, type: 'webhookEndpoint.deleted', object: response });
      return { id, object: 'webhookEndpoint', deleted: true } as const;
    }, caller.commit);
  }

  /**
   * A new secret, shown once; the one it replaces keeps signing for 24 hours (both signatures
   * are sent), so receivers can switch without losing a delivery. The endpoint changes, so
   * `updatedAt` moves and `webhookEndpoint.updated` is recorded with it; of what GET shows only
   * `updatedAt` changes, so that is its previousAttributes (no secret is ever recorded).
   */
  async rotateSecret(caller: Caller, id: string): Promise<WebhookEndpointWithSecretResponse> {
    return this.db.transaction(async (m) => {
      const endpoint = await this.find(m, caller.principal, id, true);
      const before = toWebhookEndpointResponse(endpoint);
      const secret = newSigningSecret();
      const now = new Date();
      await this.endpoints.update(m, caller.principal, id, {
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
  }

  /**
   * Disables an endpoint that has failed every attempt for WEBHOOK_DISABLE_AFTER_SECONDS, in the
   * dispatcher's transaction, with a `webhookEndpoint.updated` event by the system.
   */
  async disableFailing(m: EntityManager, endpoint: WebhookEndpoint, now: Date): Promise<void> {
    await this.endpoints.update(m, endpoint, endpoint.id, { status: 'disabled', updatedAt: now });
    await this.deliveries.cancelPending(m, endpoint.id);
    await this.events.recordUpdate(
      m,
      { principal: endpoint, type: 'webhookEndpoint.updated', request: null, actor: SYSTEM },
      toWebhookEndpointResponse(endpoint),
      toWebhookEndpointResponse({ ...endpoint, status: 'disabled', updatedAt: now }),
    );
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
    if (!allow) {
      // Refused in the same words whether or not the name resolved, never with what it resolved
      // to (url-policy.ts).
      await resolvePublic(hostOf(checked.url)).catch(() => {
        throw new InvalidWebhookUrlError(unresolvedHostProblem(hint));
      });
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
