import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import type { CommitHook } from '../../database/commit-hook';
import { Tenant } from '../../common/tenant';
import { Database } from '../../database/database';
import { ApiError } from '../../common/errors';
import { ID_PREFIXES, newId } from '../../common/ids';
import { SealedText } from '../../common/sealed-text';
import { routePath } from '../route-path';
import { secretFieldOf } from '../secret-in-answer';
import { fingerprintKey, requestFingerprint } from './idempotency-key';
import { IdempotencyRecord } from './idempotency-record.entity';
import { IdempotencyRepository, StoredResponse } from './idempotency.repository';

/** How long the first response to a key is kept and replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long a request may hold its key before a retry presumes it dead (its process crashed or
 * lost the database) and runs instead. Far longer than any request takes: PostgreSQL statements
 * time out after 4 s.
 */
export const IN_PROGRESS_LOCK_MS = 60 * 1000;
/** How often expired records are deleted (each instance sweeps; deleting twice is harmless). */
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** The response headers a replay repeats; the others are the new request's own. */
const STORED_HEADERS = ['content-type', 'location'];
/**
 * How a stored body that was encrypted begins (a JSON text never does): the answers of routes
 * marked `@SecretInAnswer()`, which show a signing secret once.
 */
const SEALED_BODY = 'sealed:v1:';

export interface ClaimInput {
  /** Keys are per organization and mode (docs/api.md §2). */
  tenant: Tenant;
  key: string;
  method: string;
  /** The path of the route reached (routePath): never the raw target, never a query string. */
  path: string;
  /** The parsed query: part of what makes two requests the same, but never stored. */
  query?: unknown;
  body: unknown;
  requestId: string;
}

/** This request runs and its response is stored, or it gets the stored response back. */
export type Claim =
  { kind: 'owner'; recordId: string } | { kind: 'replay'; record: IdempotencyRecord };

/**
 * A request's claim of its Idempotency-Key, kept on the request (as the bearer guard keeps the
 * principal) from the route guard that makes it to the onSend hook that stores or replays the
 * answer. For the request that owns its key it is also the commit hook its route passes to the
 * service's transaction (see commit-hook.ts).
 */
export class KeyClaim implements CommitHook {
  armed: boolean;

  constructor(
    readonly claim: Claim,
    private readonly route: ClaimedRoute,
    /** Stores the answer of the request that owns the key; a retry replays it from then on. */
    readonly store: (manager: EntityManager, response: StoredResponse) => Promise<void>,
  ) {
    this.armed = claim.kind === 'owner';
  }

  /** True when the stored answer is replayed and the handler must not run. */
  get replay(): boolean {
    return this.claim.kind === 'replay';
  }

  /**
   * Stores the answer in the transaction that wrote it: the status the route answers with and
   * the response the transaction returned (services return the response from their write
   * transaction), as Nest will send it. If the process dies before the response leaves, a retry
   * replays that answer instead of running the request again.
   */
  async run(manager: EntityManager, result: unknown): Promise<void> {
    if (this.claim.kind !== 'owner') return;
    // Only what is visibly the route's answer: a resource (it has `object`) or nothing (204).
    if (result !== undefined && typeof (result as { object?: unknown })?.object !== 'string') {
      return;
    }
    const body = result === undefined ? null : JSON.stringify(result);
    const headers: Record<string, string> = {};
    if (body !== null) headers['content-type'] = 'application/json; charset=utf-8';
    // A retry that comes after this commit and before the answer leaves gets the same headers.
    const location = this.route.location?.(result);
    if (location !== undefined) headers.location = location;
    await this.store(manager, { status: this.route.status, headers, body });
  }

  settle(): void {
    this.armed = false;
  }
}

/** What the route of an idempotent request answers when it succeeds. */
export interface ClaimedRoute {
  /** Its status (@HttpCode, else Nest's default). */
  status: number;
  /** A create's `Location`, from its answer (@Created). */
  location?: (result: unknown) => string | undefined;
}

/** A request that may carry its Idempotency-Key claim (set by the route guard). */
export interface ClaimedRequest {
  idempotency?: KeyClaim;
}

/** 422: the key was used for another request (`otherRoute`), or with a different body. */
export function keyReusedError(otherRoute?: string): ApiError {
  return new ApiError(
    'idempotency_error',
    `This Idempotency-Key was already used ${
      otherRoute ? `for another request (${otherRoute})` : 'with a different body'
    }; use a new key for a new request`,
    { code: 'IDEMPOTENCY_KEY_REUSED' },
  );
}

export function keyInUseError(): ApiError {
  return new ApiError(
    'conflict',
    'A request with this Idempotency-Key is still being processed; retry after it finishes',
    { code: 'IDEMPOTENCY_KEY_IN_USE', headers: { 'Retry-After': '1' } },
  );
}

/** Thrown inside the claim transaction when the row vanished between two statements. */
class ClaimRace extends Error {}

/**
 * Idempotency-Key (docs/api.md §6). A request claims its key by inserting an `in_progress` row
 * under the unique (organization, key) index, so exactly one request wins even when several
 * instances share the database; the others read the winner's row: still running (409), done
 * (replay), or a different request (422). The response is stored by `onSend`, a Fastify hook
 * that sees exactly what goes out, whether it came from a handler or the exception filter.
 */
@Injectable()
export class IdempotencyService implements OnApplicationBootstrap, OnModuleDestroy {
  private sweepTimer?: NodeJS.Timeout;
  /** The HMAC key of request fingerprints, derived from ENCRYPTION_KEY. */
  private readonly fingerprintKey: Buffer;
  /** Encrypts the stored answers that show a secret, under a key derived from ENCRYPTION_KEY. */
  private readonly answers: SealedText;

  constructor(
    private readonly db: Database,
    private readonly records: IdempotencyRepository,
    private readonly logger: PinoLogger,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'encryptionKey'>,
  ) {
    logger.setContext('Idempotency');
    this.fingerprintKey = fingerprintKey(config.encryptionKey);
    this.answers = new SealedText(config.encryptionKey, 'billing-api idempotent answers v1');
  }

  onApplicationBootstrap(): void {
    this.sweepTimer = setInterval(() => void this.sweepQuietly(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweepTimer);
  }

  /**
   * Called by IdempotencyClaim, the route guard of @Idempotent(), once the caller is known (after
   * the bearer guard) and before the validation pipe: claims the key, or finds its stored answer.
   * `route` says what the route answers when it succeeds.
   */
  async begin(
    request: FastifyRequest,
    tenant: Tenant,
    key: string,
    route: ClaimedRoute,
  ): Promise<KeyClaim> {
    const path = routePath(request);
    if (path === undefined) throw new Error('An idempotent request must have reached a route');
    const claim = await this.claim({
      tenant,
      key,
      method: request.method,
      path,
      query: request.query,
      body: request.body,
      requestId: String(request.id),
    });
    // An answer that shows a secret (the route's @SecretInAnswer()) is stored encrypted.
    const sealed = secretFieldOf(request) !== undefined;
    return new KeyClaim(claim, route, (m, response) =>
      claim.kind === 'owner'
        ? this.completeIn(m, claim.recordId, response, sealed)
        : Promise.resolve(),
    );
  }

  async claim(input: ClaimInput, now = new Date()): Promise<Claim> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction((m) => this.claimIn(m, input, now));
      } catch (err) {
        if (!(err instanceof ClaimRace) || attempt >= 3) throw err;
      }
    }
  }

  private async claimIn(m: EntityManager, input: ClaimInput, now: Date): Promise<Claim> {
    const mine = Object.assign(new IdempotencyRecord(), {
      id: newId(ID_PREFIXES.idempotencyRecord),
      organizationId: input.tenant.organizationId,
      livemode: input.tenant.livemode,
      idempotencyKey: input.key,
      requestMethod: input.method,
      requestPath: input.path,
      requestHash: requestFingerprint(this.fingerprintKey, input),
      requestId: input.requestId,
      state: 'in_progress',
      lockedUntil: new Date(now.getTime() + IN_PROGRESS_LOCK_MS),
      responseStatus: null,
      responseHeaders: null,
      responseBody: null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    } satisfies IdempotencyRecord);
    await this.records.insertUnlessTaken(m, mine);
    const current = await this.records.findForUpdate(m, input.tenant, input.key);
    if (!current) throw new ClaimRace(); // released by its owner in between: try again
    if (current.id === mine.id) return { kind: 'owner', recordId: mine.id };

    const takeOver = async (): Promise<Claim> => {
      await this.records.replace(m, current.id, mine);
      return { kind: 'owner', recordId: mine.id };
    };
    // An expired record no longer exists as far as the client can tell.
    if (current.expiresAt.getTime() <= now.getTime()) return takeOver();
    if (current.requestHash !== mine.requestHash) {
      const sameRoute =
        current.requestMethod === mine.requestMethod && current.requestPath === mine.requestPath;
      throw keyReusedError(
        sameRoute ? undefined : `${current.requestMethod} ${current.requestPath}`,
      );
    }
    if (current.state === 'complete') return { kind: 'replay', record: current };
    if (current.lockedUntil && current.lockedUntil.getTime() > now.getTime()) {
      throw keyInUseError();
    }
    // In progress past its lock: the request that held it is presumed dead.
    return takeOver();
  }

  /** Stores the answer of `keyClaim` as sent; a retry replays it from now on. */
  async complete(keyClaim: KeyClaim, response: StoredResponse): Promise<void> {
    await this.db.transaction((m) => keyClaim.store(m, response));
  }

  private async completeIn(
    m: EntityManager,
    recordId: string,
    response: StoredResponse,
    sealed: boolean,
  ): Promise<void> {
    // By id only: the record stays this request's until a retry takes over a stale claim, which
    // deletes it (and a record already completed by the request's transaction gets the response
    // as sent).
    const body =
      sealed && response.body !== null
        ? SEALED_BODY + this.answers.seal(response.body, recordId)
        : response.body;
    await this.records.complete(m, recordId, { ...response, body });
  }

  /** A stored answer's body as it was sent (opened, when it was stored encrypted). */
  private storedBody(record: IdempotencyRecord): string | null {
    const body = record.responseBody;
    if (body === null || !body.startsWith(SEALED_BODY)) return body;
    return this.answers.open(body.slice(SEALED_BODY.length), record.id);
  }

  /** Deletes expired records; returns how many. */
  async sweep(now = new Date()): Promise<number> {
    return this.db.transaction((m) => this.records.deleteExpired(m, now));
  }

  private async sweepQuietly(): Promise<void> {
    try {
      const deleted = await this.sweep();
      if (deleted > 0) this.logger.info({ deleted }, 'expired idempotency records deleted');
    } catch (err) {
      this.logger.warn({ err }, 'idempotency sweep failed; it runs again later');
    }
  }

  /**
   * Fastify onSend hook. For a replay: the stored status, headers and body replace what Nest
   * was about to send. For the request that owns a key: a response below 500 is stored before
   * it leaves (so a retry that follows it always finds it), a 5xx releases the key.
   */
  readonly onSend = async (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
  ): Promise<unknown> => {
    const keyClaim = (request as FastifyRequest & ClaimedRequest).idempotency;
    if (!keyClaim) return payload;
    (request as FastifyRequest & ClaimedRequest).idempotency = undefined;
    const { claim } = keyClaim;
    if (claim.kind === 'replay') {
      return replay(request, reply, claim.record, this.storedBody(claim.record));
    }
    if (keyClaim.armed && reply.statusCode < 300) {
      // A success whose answer no write transaction stored: the route's service did not pass
      // `caller.commit` to db.transaction, so a crash between its commit and the store below
      // would make a retry run the write again (docs/development.md, what every write route owes).
      this.logger.error(
        { reqId: request.id, route: `${request.method} ${request.routeOptions.url}` },
        'idempotent answer not stored with its write: the service must pass caller.commit to db.transaction',
      );
    }
    // The response is stored below; no later transaction of this request may store it again.
    keyClaim.settle();

    const storable = payload === undefined || payload === null || typeof payload === 'string';
    try {
      if (reply.statusCode >= 500 || !storable) {
        // Forgotten, so that a retry runs again. A claim whose work committed (its answer stored
        // with it) is kept: the effect happened, a retry replays it.
        await this.db.transaction((m) => this.records.deleteInProgress(m, claim.recordId));
      } else {
        const headers: Record<string, string> = {};
        for (const name of STORED_HEADERS) {
          const value = reply.getHeader(name);
          if (value !== undefined) headers[name] = String(value);
        }
        const body = typeof payload === 'string' ? payload : null;
        await this.complete(keyClaim, { status: reply.statusCode, headers, body });
      }
    } catch (err) {
      // The response still goes out; the key stays in progress until its lock runs out.
      this.logger.error(
        { err, reqId: request.id },
        'could not store the idempotent response; a retry after the lock expires runs again',
      );
    }
    return payload;
  };
}

/** Sends a stored response (its body `body`, opened) again, marked as a replay. */
function replay(
  request: FastifyRequest,
  reply: FastifyReply,
  record: IdempotencyRecord,
  body: string | null,
): unknown {
  const status = record.responseStatus ?? 200;
  void reply.code(status);
  // The response being replaced may carry a Content-Type the stored response did not have (a 204).
  const stored = record.responseHeaders ?? {};
  for (const name of STORED_HEADERS) if (!(name in stored)) reply.removeHeader(name);
  reply.removeHeader('etag'); // the replaced response's: etagOnSend tags the stored body
  for (const [name, value] of Object.entries(stored)) void reply.header(name, value);
  void reply.header('idempotent-replayed', 'true');
  void reply.header('original-request-id', record.requestId);
  // An error envelope's requestId names the request that answers (docs/api.md §3): the
  // replay's own, as in its X-Request-Id header. Original-Request-Id names the first.
  if (body !== null && status >= 400) return withRequestId(body, String(request.id));
  return body;
}

function withRequestId(body: string, requestId: string): string {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed !== null && typeof parsed === 'object' && 'requestId' in parsed) {
      return JSON.stringify({ ...parsed, requestId });
    }
  } catch {
    // not JSON: send it as it was
  }
  return body;
}
