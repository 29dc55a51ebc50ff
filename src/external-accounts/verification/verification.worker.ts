import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { LeasePoller } from '../../database/lease-poller';
import { ExternalBankAccount } from '../entities/external-bank-account.entity';
import { ExternalAccountsRepository } from '../external-accounts.repository';
import { VerificationService } from './verification.service';

/** The most verifications one instance has in flight, and so the most one claim takes. */
export const VERIFICATION_BATCH = 20;

/**
 * Decides due automatic verifications (the test-mode sandbox), a job of the LeasePoller: an
 * account's `verification_due_at` says it is due; a claim moves it a lease
 * (VERIFICATION_LEASE_SECONDS) ahead; the verifier decides and VerificationService.recordOutcome
 * writes the outcome (a compare-and-set on the submission, with its event). A process that dies
 * after its claim leaves the account due again when the lease ends.
 */
@Injectable()
export class VerificationWorker implements OnModuleInit {
  constructor(
    private readonly poller: LeasePoller,
    private readonly accounts: ExternalAccountsRepository,
    private readonly verification: VerificationService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly logger: PinoLogger,
  ) {
    logger.setContext('VerificationWorker');
  }

  onModuleInit(): void {
    const { workerEnabled, pollIntervalMs, leaseSeconds } = this.config.verification;
    if (!workerEnabled) return;
    this.poller.register<ExternalBankAccount>({
      name: 'verification',
      intervalMs: pollIntervalMs,
      concurrency: VERIFICATION_BATCH,
      leaseMs: leaseSeconds * 1000,
      claim: (m, now, limit, leaseUntil) => this.accounts.claimDue(m, now, limit, leaseUntil),
      run: (account) => this.verify(account),
    });
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
    this.logger.info(
      {
        accountId: account.id,
        livemode: account.livemode,
        submission: account.verificationSubmission,
        verifier: verifier.name,
        ...(after ? { status: after.status, statusReason: after.statusReason } : {}),
      },
      after
        ? 'external bank account verification decided'
        : 'verification outcome dropped: the submission was superseded',
    );
  }
}
