import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { NotFoundError } from '../../common/errors';
import { etagOf } from '../../common/etag';
import { ID_PREFIXES, isIdOf } from '../../common/ids';
import { Database } from '../../database/database';
import { Actor, OPERATOR, SYSTEM } from '../../platform/caller';
import { EventsService } from '../../events/events.service';
import { VerificationOutcome, statusAfter } from '../account-status';
import {
  ExternalBankAccountResponse,
  toExternalBankAccountResponse,
} from '../dto/external-bank-account.response';
import { ExternalBankAccount } from '../entities/external-bank-account.entity';
import {
  NotForOperatorError,
  NotPendingError,
  AccountChangedError,
  TestModeAccountError,
} from '../external-accounts.errors';
import { ExternalAccountsRepository } from '../external-accounts.repository';
import { VERIFIERS, Verifier } from './verifier';

/** The most accounts `awaitingOperator` lists at once. */
export const MAX_AWAITING_OPERATOR = 1000;

/**
 * Verification of external bank accounts (docs/api.md §5.5, docs/verification.md): which
 * verifier decides an account, when a submission is due, and the one way an outcome is written.
 *
 * An outcome is a compare-and-set on the account's submission: it is written only while the
 * account is still pending at the submission it was decided for, with its event
 * (`externalBankAccount.verified|errored`) in the same transaction. A resubmission made while an
 * older verification was still running is a newer submission, so the older outcome is dropped.
 */
@Injectable()
export class VerificationService {
  constructor(
    private readonly db: Database,
    private readonly accounts: ExternalAccountsRepository,
    private readonly events: EventsService,
    @Inject(VERIFIERS) private readonly verifiers: Verifier[],
  ) {}

  /** The verifier of `account`: the first in VERIFIERS that handles it. */
  verifierFor(account: ExternalBankAccount): Verifier {
    const verifier = this.verifiers.find((v) => v.handles(account));
    if (!verifier) throw new Error(`No verifier handles external bank account ${account.id}`);
    return verifier;
  }

  /**
   * When the worker should decide a submission of `account` made at `now`: after the automatic
   * verifier's delay, or never (null) when a person decides.
   */
  dueAt(account: ExternalBankAccount, now: Date): Date | null {
    const verifier = this.verifierFor(account);
    return verifier.kind === 'automatic'
      ? new Date(now.getTime() + verifier.delayMs(account))
      : null;
  }

  /**
   * Records the outcome an automatic verifier decided for the submission `claimed` was at, with
   * actor `system`. Returns the account after the change, or null when that submission is no
   * longer pending (decided by another claim, resubmitted since, deleted): the outcome is
   * dropped.
   */
  recordOutcome(
    claimed: ExternalBankAccount,
    outcome: VerificationOutcome,
  ): Promise<ExternalBankAccountResponse | null> {
    return this.db.transaction(async (m) => {
      const account = await this.stillClaimed(m, claimed);
      return account?.status === 'pending' ? this.write(m, account, outcome, SYSTEM) : null;
    });
  }

  /** Takes an account off the worker's list (its verifier is not automatic any more). */
  async release(claimed: ExternalBankAccount): Promise<void> {
    await this.db.transaction(async (m) => {
      const account = await this.stillClaimed(m, claimed);
      if (account) await this.accounts.setDue(m, [account.id], null);
    });
  }

  /** The account `claimed` was, locked, while it is still at that submission (and undeleted). */
  private async stillClaimed(
    m: EntityManager,
    claimed: ExternalBankAccount,
  ): Promise<ExternalBankAccount | null> {
    const account = await this.accounts.findById(m, claimed.id, true);
    return account?.verificationSubmission === claimed.verificationSubmission ? account : null;
  }

  /**
   * The operator's queue: live accounts waiting for a decision, oldest first, of one
   * organization or of all, up to `limit`, and whether more wait behind them. Each as GET shows
   * it (account numbers redacted), with the ETag a decision on it must name (`--etag`).
   */
  async awaitingOperator(organizationId?: string, limit = 100) {
    const take = Math.max(1, Math.min(limit, MAX_AWAITING_OPERATOR));
    const rows = await this.db.read((m) =>
      this.accounts.awaitingOperator(m, organizationId, take + 1),
    );
    return {
      data: rows.slice(0, take).map((row) => {
        const view = toExternalBankAccountResponse(row);
        return { ...view, etag: etagOf(view) };
      }),
      hasMore: rows.length > take,
    };
  }

  /**
   * The operator's decision on a live account waiting for one (the command line), with actor
   * `operator`. An unknown id, a deleted account and a test-mode account are not found (the
   * sandbox verifies test accounts: they never wait for an operator); an account that is not
   * pending is a conflict, and so is one whose ETag is not the `etag` the operator was shown
   * (ACCOUNT_CHANGED): a decision is about the details the operator saw.
   */
  decideAsOperator(
    id: string,
    etag: string,
    outcome: VerificationOutcome,
  ): Promise<ExternalBankAccountResponse> {
    return this.db.transaction(async (m) => {
      const account = isIdOf(ID_PREFIXES.externalBankAccount, id)
        ? await this.accounts.findById(m, id, true)
        : null;
      if (!account) throw new NotFoundError('externalBankAccount', id);
      if (!account.livemode) throw new TestModeAccountError(id);
      const verifier = this.verifierFor(account);
      if (verifier.kind !== 'manual') throw new NotForOperatorError(id, verifier.name);
      if (account.status !== 'pending') throw new NotPendingError(id, account.status);
      if (etagOf(toExternalBankAccountResponse(account)) !== etag) {
        throw new AccountChangedError(id);
      }
      const after = await this.write(m, account, outcome, OPERATOR);
      // Locked and checked above: the compare-and-set cannot miss here.
      if (!after) throw new NotPendingError(id, account.status);
      return after;
    });
  }

  /** The compare-and-set of an outcome and its event, in the caller's transaction. */
  private async write(
    m: EntityManager,
    account: ExternalBankAccount,
    outcome: VerificationOutcome,
    actor: Actor,
  ): Promise<ExternalBankAccountResponse | null> {
    const change = { ...statusAfter(outcome), updatedAt: new Date() };
    if (!(await this.accounts.decide(m, account.id, account.verificationSubmission, change))) {
      return null;
    }
    const next: ExternalBankAccount = { ...account, ...change, verificationDueAt: null };
    const before = toExternalBankAccountResponse(account);
    const after = toExternalBankAccountResponse(next);
    await this.events.record(m, {
      principal: { organizationId: account.organizationId, livemode: account.livemode },
      type: `externalBankAccount.${outcome.status}`,
      object: after,
      previousAttributes: EventsService.changes(before, after),
      request: null,
      actor,
    });
    return after;
  }
}
