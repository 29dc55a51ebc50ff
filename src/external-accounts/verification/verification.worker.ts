import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { Database } from '../../database/database';
import { ExternalBankAccount } from '../entities/external-bank-account.entity';
import { ExternalAccountsRepository } from '../external-accounts.repository';
import { VerificationService } from './verification.service';

/** The most verifications one instance has in flight, and so the most one claim takes. */
export const VERIFICATION_BATCH = 20;
/** The most due times of this process's submissions the worker remembers to wake up for. */
const MAX_WAKES = 10_000;

/**
 * Decides due automatic verifications (the test-mode sandbox), inside the service but never in
 * a request's path. Its state is the accounts' rows: `verification_due_at` says what is due.
 *
 * Every VERIFICATION_POLL_INTERVAL_MS, and at the due time of each submission committed in this
 * process, it claims due accounts in one transaction (FOR UPDATE SKIP LOCKED on PostgreSQL, so
 * that two instances never claim one account; on SQLite every transaction holds the write lock)
 * and moves each one a lease (VERIFICATION_LEASE_SECONDS) ahead. Then, outside the transaction,
 * it asks the account's verifier and records the outcome (VerificationService.recordOutcome: a
 * compare-and-set on the submission, with its event). A process that dies after its claim
 * leaves the account due again when the lease ends, and any instance decides it then; one that
 * restarts finds what was due while it was down at its first poll.
 */
@Injectable()
export class VerificationWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  /** When the timer fires (epoch ms), Infinity when none is set. */
  private timerAt = Infinity;
  private running = false;
  private polling?: Promise<void>;
  /** Due times (epoch ms) of submissions committed in this process that no poll has covered. */
  private wakes: number[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  /** A poll found too little room beside the verifications in flight: poll once there is. */
  private roomWanted = false;
  /** Room came while a poll ran: the next poll follows it at once. */
  private pollAgain = false;

  constructor(
    private readonly db: Database,
    private readonly accounts: ExternalAccountsRepository,
    private readonly verification: VerificationService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly logger: PinoLogger,
  ) {
    logger.setContext('VerificationWorker');
    verification.onSubmitted((dueAt) => this.wakeAt(dueAt.getTime()));
  }

  onApplicationBootstrap(): void {
    if (!this.config.verification.workerEnabled) return;
    this.running = true;
    this.schedule(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.polling;
    // A verifier's answer still on its way is recorded before the database closes; one that
    // never comes leaves its account due again when the lease ends.
    await Promise.all(this.inFlight);
  }

  /** A submission is due at `at` (epoch ms): a poll then, unless one is set for sooner. */
  private wakeAt(at: number): void {
    if (!this.running) return;
    // Bounded: past this many, later submissions wait for the poll interval instead.
    if (this.wakes.length < MAX_WAKES) this.wakes.push(at);
    if (!this.polling && at < this.timerAt) this.schedule(at - Date.now());
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    // A timer may fire a millisecond before its time: a little after, so the account is due.
    const delay = Math.max(0, delayMs) + (delayMs > 0 ? 2 : 0);
    this.timerAt = Date.now() + delay;
    this.timer = setTimeout(() => this.tick(), delay);
    this.timer.unref();
  }

  private tick(): void {
    this.timerAt = Infinity;
    if (!this.running || this.polling) return;
    const started = Date.now();
    let more = false;
    this.polling = this.poll(new Date(started))
      .then((full) => {
        more = full;
      })
      .catch((err: unknown) => this.logger.warn({ err }, 'verification poll failed'))
      .finally(() => {
        this.polling = undefined;
        if (!this.running) return;
        // What was due when the poll began, it claimed; the next poll is at the next due time
        // announced here, or after the interval, whichever comes first.
        this.wakes = this.wakes.filter((at) => at > started);
        const now = Date.now();
        const next =
          more || this.pollAgain
            ? now
            : Math.min(now + this.config.verification.pollIntervalMs, ...this.wakes);
        this.pollAgain = false;
        this.schedule(next - now);
      });
  }

  /**
   * Room for half a full claim: a poll waits for it, so that a backlog is claimed in batches, not
   * one account per verification that ends.
   */
  private roomToClaim(): boolean {
    return this.inFlight.size <= VERIFICATION_BATCH / 2;
  }

  /** A verification ended: if a poll found no room, the next one is now, not after the interval. */
  private ended(): void {
    if (!this.running || !this.roomWanted || !this.roomToClaim()) return;
    this.roomWanted = false;
    if (this.polling) this.pollAgain = true;
    else this.schedule(0);
  }

  /**
   * Claims what fits beside the verifications in flight and starts them (without awaiting
   * them). True when the claim was full: more may be due. With less than half a claim's room it
   * claims nothing and asks for a poll once there is (`ended`), so that a backlog drains as fast
   * as its verifications end, whatever the poll interval.
   */
  private async poll(now: Date): Promise<boolean> {
    if (!this.roomToClaim()) {
      this.roomWanted = true;
      return false;
    }
    const free = VERIFICATION_BATCH - this.inFlight.size;
    const until = new Date(now.getTime() + this.config.verification.leaseSeconds * 1000);
    const claimed = await this.db.transaction(async (m) => {
      const due = await this.accounts.due(m, now, free);
      await this.accounts.setDue(
        m,
        due.map((a) => a.id),
        until,
      );
      return due;
    });
    for (const account of claimed) this.start(account);
    return claimed.length === free;
  }

  private start(account: ExternalBankAccount): void {
    const done: Promise<void> = this.verify(account)
      .catch((err: unknown) =>
        this.logger.warn(
          { err, accountId: account.id },
          'verification failed; it is tried again when its lease ends',
        ),
      )
      .finally(() => {
        this.inFlight.delete(done);
        this.ended();
      });
    this.inFlight.add(done);
  }

  /** One verification: ask the verifier, then record the outcome if it is still wanted. */
  private async verify(account: ExternalBankAccount): Promise<void> {
    const verifier = this.verification.verifierFor(account);
    if (verifier.kind !== 'automatic') {
      // Due for a person now (the verifiers changed since it was submitted): not the worker's.
      await this.verification.release(account);
      return;
    }
    const outcome = await verifier.decide(account);
    const after = await this.verification.recordOutcome(account, outcome);
    const fields = {
      accountId: account.id,
      livemode: account.livemode,
      submission: account.verificationSubmission,
      verifier: verifier.name,
    };
    if (after) {
      this.logger.info(
        { ...fields, status: after.status, statusReason: after.statusReason },
        'external bank account verification decided',
      );
    } else {
      this.logger.info(fields, 'verification outcome dropped: the submission was superseded');
    }
  }
}
