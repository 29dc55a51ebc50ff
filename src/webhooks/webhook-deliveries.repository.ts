import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, In, IsNull, Not } from 'typeorm';
import { Database } from '../database/database';
import { perCount, placeholders } from '../database/entity-table';
import { EventRecord } from '../events/entities/event.entity';
import { WebhookAttempt } from './entities/webhook-attempt.entity';
import { WebhookDelivery } from './entities/webhook-delivery.entity';

export interface AttemptFilters {
  eventId?: string;
  succeeded?: boolean;
}

/** The queries of webhook_deliveries and webhook_attempts; each takes the caller's manager. */
@Injectable()
export class WebhookDeliveriesRepository {
  private built?: ReturnType<typeof deliveryStatements>;

  constructor(private readonly db: Database) {}

  private get sql(): ReturnType<typeof deliveryStatements> {
    return (this.built ??= deliveryStatements(this.db));
  }

  /** In the transaction of the event: constant SQL (EntityTable), one statement for up to 50. */
  async insert(m: EntityManager, deliveries: WebhookDelivery[]): Promise<void> {
    await this.db.insertRows(m, this.sql.deliveries, deliveries);
  }

  /**
   * Up to `limit` deliveries due at `now` (their ids and endpoints), oldest due first, leaving
   * out `busyEndpoints`. A plain read: nothing is locked until `take` leases the ones chosen, so
   * a claim locks and writes only the rows it sends. The dispatcher's statements are constant
   * SQL (EntityTable): each delivery runs several, and they are most of its cost.
   */
  async dueCandidates(
    m: EntityManager,
    now: Date,
    limit: number,
    busyEndpoints: string[],
  ): Promise<{ id: string; endpointId: string }[]> {
    const sql = this.sql;
    const rows = await this.db.rows<{ id: string; endpoint_id: string }>(
      m,
      sql.due(busyEndpoints.length),
      [sql.deliveries.param('nextAttemptAt', now), ...busyEndpoints, limit],
    );
    return rows.map((row) => ({ id: row.id, endpointId: row.endpoint_id }));
  }

  /**
   * Leases these deliveries (`ids`, read by `dueCandidates`) until `until` under `token`, those
   * still due at `now` only, and returns them as leased, in no particular order. On PostgreSQL
   * a row another instance holds locked is skipped, not waited for (FOR UPDATE SKIP LOCKED): two
   * instances claiming at once take different rows, and one that another has just leased is no
   * longer due. (On SQLite one process delivers and its transactions run one at a time.)
   */
  async take(
    m: EntityManager,
    ids: string[],
    now: Date,
    until: Date,
    token: string,
  ): Promise<WebhookDelivery[]> {
    if (ids.length === 0) return [];
    const { deliveries, take } = this.sql;
    const rows = await this.db.returning(m, take(ids.length), [
      deliveries.param('nextAttemptAt', until),
      token,
      deliveries.param('updatedAt', new Date()),
      ...ids,
      deliveries.param('nextAttemptAt', now),
    ]);
    return rows.map((row) => deliveries.fromRow(row));
  }

  /**
   * Hands leased deliveries back, due at `at` with no lease, those only whose lease is still the
   * token given (a lease that ran out and was taken over stays with its new holder). Locks them
   * in the order of their ids, as `lockMany`. Returns how many were handed back.
   */
  async handBack(
    m: EntityManager,
    leases: { id: string; token: string }[],
    at: Date,
  ): Promise<number> {
    const tokens = new Map(leases.map((l) => [l.id, l.token]));
    const locked = await this.lockMany(m, [...tokens.keys()].sort());
    const held = locked.filter((d) => d.leaseToken === tokens.get(d.id));
    const { deliveries, lease } = this.sql;
    // Due again at `at`; one canceled meanwhile (cancelPending) only loses its lease.
    for (const [ids, due] of [
      [held.filter((d) => d.status !== 'canceled').map((d) => d.id), at],
      [held.filter((d) => d.status === 'canceled').map((d) => d.id), null],
    ] as const) {
      if (ids.length === 0) continue;
      await this.db.execute(m, lease(ids.length), [
        due === null ? null : deliveries.param('nextAttemptAt', due),
        null,
        deliveries.param('updatedAt', at),
        ...ids,
      ]);
    }
    return held.length;
  }

  /**
   * These deliveries, locked in the order of their ids (so that two instances' batches never
   * deadlock): whoever holds each lease now is for the caller to compare with its token.
   */
  async lockMany(m: EntityManager, ids: string[]): Promise<WebhookDelivery[]> {
    if (ids.length === 0) return [];
    const { deliveries, lockMany } = this.sql;
    const rows = await this.db.rows(m, lockMany(ids.length), ids);
    return rows.map((row) => deliveries.fromRow(row));
  }

  /**
   * The outcome of deliveries attempted once more with success, those only still leased under
   * `token` (a lease that ran out and was taken over stays with its new holder): nothing left to
   * do. Returns each one changed with its attempts counted (this one included).
   */
  async markSucceeded(
    m: EntityManager,
    ids: string[],
    token: string,
    at: Date,
  ): Promise<{ id: string; attempts: number }[]> {
    if (ids.length === 0) return [];
    const { deliveries, succeeded } = this.sql;
    const rows = await this.db.returning<{ id: string; attempts: number | string }>(
      m,
      succeeded(ids.length),
      [deliveries.param('updatedAt', at), ...ids, token],
    );
    return rows.map((row) => ({ id: row.id, attempts: Number(row.attempts) }));
  }

  /** Sets `changes` (and a new updatedAt) on one delivery. */
  async update(m: EntityManager, id: string, changes: Partial<WebhookDelivery>): Promise<void> {
    const sql = this.sql;
    const set: Partial<WebhookDelivery> = { ...changes, updatedAt: new Date() };
    const properties = (Object.keys(set) as (keyof WebhookDelivery)[]).filter(
      (p) => set[p] !== undefined,
    );
    await this.db.execute(m, sql.update(properties), [
      ...properties.map((p) => sql.deliveries.param(p, set[p])),
      id,
    ]);
  }

  /** The events that claimed deliveries send (those still stored), in no particular order. */
  async events(m: EntityManager, ids: string[]): Promise<EventRecord[]> {
    if (ids.length === 0) return [];
    const { events, eventsByIds } = this.sql;
    const rows = await this.db.rows(m, eventsByIds(ids.length), ids);
    return rows.map((row) => events.fromRow(row));
  }

  /**
   * Cancels what an endpoint still had to receive (it was disabled or deleted), claimed ones
   * too: a claimed delivery keeps its lease token, so that an attempt in flight is still recorded
   * when it ends (WebhookDispatcher.record, which plans no retry for a canceled delivery), and
   * one not started yet is taken back by the dispatcher that holds it (at once on the instance
   * that made the change, at its next poll on another) and stays canceled (handBack).
   * Canceled, it is never due again, even once the endpoint is enabled or its process has died.
   */
  async cancelPending(m: EntityManager, endpointId: string): Promise<void> {
    await m.update(
      WebhookDelivery,
      { endpointId, nextAttemptAt: Not(IsNull()) },
      { status: 'canceled', nextAttemptAt: null, updatedAt: new Date() },
    );
  }

  /**
   * When the oldest delivery still to make was queued (with its event), or null when none is:
   * the metrics' undelivered-event age. Reads only the rows still due (next_attempt_at set).
   */
  async oldestUndeliveredAt(m: EntityManager): Promise<Date | null> {
    const oldest = await m.findOne(WebhookDelivery, {
      select: { id: true, createdAt: true },
      where: { nextAttemptAt: Not(IsNull()) },
      order: { createdAt: 'ASC' },
    });
    return oldest?.createdAt ?? null;
  }

  /** Attempts' rows, up to 50 a statement. */
  async insertAttempts(m: EntityManager, attempts: WebhookAttempt[]): Promise<void> {
    await this.db.insertRows(m, this.sql.attempts, attempts);
  }

  attemptsPage(
    m: EntityManager,
    endpointId: string,
    filters: AttemptFilters,
    limit: number,
    offset: number,
  ): Promise<[WebhookAttempt[], number]> {
    const where: FindOptionsWhere<WebhookAttempt> = { endpointId };
    if (filters.eventId !== undefined) where.eventId = filters.eventId;
    if (filters.succeeded !== undefined) where.succeeded = filters.succeeded;
    return m.findAndCount(WebhookAttempt, {
      where,
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
      skip: offset,
    });
  }

  /** Deletes the deliveries and attempts of these events (the retention sweep). */
  async deleteForEvents(m: EntityManager, eventIds: string[]): Promise<void> {
    if (eventIds.length === 0) return;
    const deliveries = await m.find(WebhookDelivery, {
      select: { id: true },
      where: { eventId: In(eventIds) },
    });
    const ids = deliveries.map((d) => d.id);
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      await m.delete(WebhookAttempt, { deliveryId: In(chunk) });
      await m.delete(WebhookDelivery, { id: In(chunk) });
    }
  }
}

/** The dispatcher's statements, built once; the ones with a list are built once per length. */
function deliveryStatements(db: Database) {
  const deliveries = db.table(WebhookDelivery);
  const attempts = db.table(WebhookAttempt);
  const events = db.table(EventRecord);
  const updates = new Map<string, string>();
  const columnOf = new Map(
    db.dataSource.getMetadata(WebhookDelivery).columns.map((c) => [c.propertyName, c.databaseName]),
  );
  return {
    deliveries,
    attempts,
    events,
    /** Parameters: now, the busy endpoints, the limit. */
    due: perCount(
      (busy) =>
        'SELECT "id", "endpoint_id" FROM "webhook_deliveries" ' +
        'WHERE "next_attempt_at" IS NOT NULL AND "next_attempt_at" <= ?' +
        (busy > 0 ? ` AND "endpoint_id" NOT IN (${placeholders(busy)})` : '') +
        ' ORDER BY "next_attempt_at" ASC LIMIT ?',
    ),
    /**
     * Parameters: the lease's end, its token, updatedAt, the ids, now. Still due is written
     * `(...) IS TRUE` (null is not due): a condition the partial index of due deliveries cannot
     * answer, so that the rows are found by their ids whatever the statistics say. Written
     * `"next_attempt_at" <= ?`, it let both databases scan every due row for the ids when their
     * statistics were older than the backlog (test/webhooks/stale-statistics.e2e-spec.ts).
     */
    take: perCount((n) => {
      const still = `"id" IN (${placeholders(n)}) AND ("next_attempt_at" <= ?) IS TRUE`;
      return (
        'UPDATE "webhook_deliveries" SET "next_attempt_at" = ?, "lease_token" = ?, "updated_at" = ? ' +
        (db.isPostgres
          ? `WHERE "id" IN (SELECT "id" FROM "webhook_deliveries" WHERE ${still} FOR UPDATE SKIP LOCKED) `
          : `WHERE ${still} `) +
        `RETURNING ${deliveries.columnList()}`
      );
    }),
    /** Parameters: the lease's end (or when due again), its token (or null), updatedAt, the ids. */
    lease: perCount(
      (n) =>
        'UPDATE "webhook_deliveries" SET "next_attempt_at" = ?, "lease_token" = ?, "updated_at" = ? ' +
        `WHERE "id" IN (${placeholders(n)})`,
    ),
    /** Parameters: the ids. */
    lockMany: perCount(
      (n) =>
        `SELECT ${deliveries.columnList()} FROM "webhook_deliveries" WHERE "id" IN (${placeholders(n)}) ORDER BY "id"` +
        (db.isPostgres ? ' FOR UPDATE' : ''),
    ),
    /** Parameters: updatedAt, the ids, the lease token. */
    succeeded: perCount(
      (n) =>
        'UPDATE "webhook_deliveries" SET "attempts" = "attempts" + 1, "status" = \'succeeded\', ' +
        '"next_attempt_at" = NULL, "lease_token" = NULL, "updated_at" = ? ' +
        `WHERE "id" IN (${placeholders(n)}) AND "lease_token" = ? RETURNING "id", "attempts"`,
    ),
    /** Parameters: the ids. */
    eventsByIds: perCount(
      (n) => `SELECT ${events.columnList()} FROM "events" WHERE "id" IN (${placeholders(n)})`,
    ),
    /** Parameters: the value of each property, then the id. */
    update(properties: string[]): string {
      const key = properties.join(',');
      let text = updates.get(key);
      if (text === undefined) {
        const set = properties.map((p) => {
          const column = columnOf.get(p);
          if (!column) throw new Error(`webhook_deliveries has no column for ${p}`);
          return `"${column}" = ?`;
        });
        text = `UPDATE "webhook_deliveries" SET ${set.join(', ')} WHERE "id" = ?`;
        updates.set(key, text);
      }
      return text;
    },
  };
}
