import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Tenant, ownedBy } from '../../common/tenant';
import { Database } from '../../database/database';
import { IdempotencyRecord } from './idempotency-record.entity';

/** What a stored answer holds. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

/** The queries of idempotency records, on the entity manager of the caller's unit of work. */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly db: Database) {}

  /**
   * Inserts `record` unless the organization already has a record of its key in this mode: ON CONFLICT DO
   * NOTHING (INSERT OR IGNORE on SQLite). On PostgreSQL a concurrent insert of the same key
   * waits for the other transaction, then does nothing.
   */
  async insertUnlessTaken(m: EntityManager, record: IdempotencyRecord): Promise<void> {
    await m
      .createQueryBuilder()
      .insert()
      .into(IdempotencyRecord)
      .values(record)
      .orIgnore()
      .execute();
  }

  /** The record of an organization's key in one mode, locked for the claim on PostgreSQL. */
  findForUpdate(
    m: EntityManager,
    tenant: Tenant,
    idempotencyKey: string,
  ): Promise<IdempotencyRecord | null> {
    return m.findOne(IdempotencyRecord, {
      where: { ...ownedBy(tenant), idempotencyKey },
      lock: this.db.rowLock,
    });
  }

  /** Replaces a stale or expired record of the key with `record`. */
  async replace(m: EntityManager, staleId: string, record: IdempotencyRecord): Promise<void> {
    await m.delete(IdempotencyRecord, { id: staleId });
    await m.insert(IdempotencyRecord, record);
  }

  /** Stores the answer of the record's request; a retry replays it from now on. */
  async complete(m: EntityManager, id: string, response: StoredResponse): Promise<void> {
    await m.update(
      IdempotencyRecord,
      { id },
      {
        state: 'complete',
        lockedUntil: null,
        responseStatus: response.status,
        responseHeaders: response.headers,
        responseBody: response.body,
      },
    );
  }

  /** Deletes the record if its request is still in progress (it failed: a retry runs again). */
  async deleteInProgress(m: EntityManager, id: string): Promise<void> {
    await m.delete(IdempotencyRecord, { id, state: 'in_progress' });
  }

  /** Deletes the records expired at `now`; returns how many. */
  async deleteExpired(m: EntityManager, now: Date): Promise<number> {
    const result = await m
      .createQueryBuilder()
      .delete()
      .from(IdempotencyRecord)
      .where('expires_at <= :now', { now })
      .execute();
    return result.affected ?? 0;
  }
}
