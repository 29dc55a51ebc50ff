import { EntityManager } from 'typeorm';

/**
 * Writes that must commit together with the first write transaction of a request: the stored
 * response of the request's Idempotency-Key, so that the resource and the record of its answer
 * land in one commit (a process killed between two commits would leave a resource whose retry
 * runs again). The route hands it to its service, which passes it to Database.transaction: no
 * ambient context carries it.
 */
export interface CommitHook {
  /** True until a transaction has committed with it, or its answer was stored another way. */
  readonly armed: boolean;
  /** Runs inside the transaction, after its work: gets the manager and what the work returned. */
  run(manager: EntityManager, result: unknown): Promise<void>;
  /** The transaction that ran it committed; later transactions of the request skip it. */
  settle(): void;
}
