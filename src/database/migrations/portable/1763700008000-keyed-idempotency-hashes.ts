import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency records now hold a keyed hash of their request (HMAC under a key derived from
 * ENCRYPTION_KEY) and the path of the route reached, never a query string. The records stored
 * before held an unkeyed SHA-256 of the body, with which a reader of the database could confirm
 * a guess of an account number, and the full URL, query string included (an API key sent as
 * `?access_token=` among them). They cannot be rehashed without their bodies, so they are
 * dropped: a retry of a request sent before the upgrade runs as a new request.
 */
export class KeyedIdempotencyHashes1763700008000 implements MigrationInterface {
  name = 'KeyedIdempotencyHashes1763700008000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "idempotency_records"`);
  }

  async down(): Promise<void> {
    // Nothing to restore: the dropped records expired within 24 hours anyway.
  }
}
