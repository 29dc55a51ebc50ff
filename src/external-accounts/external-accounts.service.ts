import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { assertIfMatch } from '../common/etag';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { assertOwnMerchant } from '../common/merchant';
import { mergeMetadata } from '../common/metadata';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { isUniqueViolation } from '../database/database-errors';
import { Database } from '../database/database';
import { lockedUpdate } from '../database/locked-update';
import { Tenant } from '../common/tenant';
import { Caller } from '../platform/caller';
import { EventsService } from '../events/events.service';
import { AccountNumberVault } from './account-number-vault';
import { holderChanges, resubmits } from './account-status';
import { checkBankDetails, visibleLast4 } from './bank-details';
import { CreateExternalAccountDto } from './dto/create-external-account.dto';
import {
  DeletedExternalBankAccountResponse,
  ExternalBankAccountResponse,
  toExternalBankAccountResponse,
} from './dto/external-bank-account.response';
import { ListExternalAccountsQueryDto } from './dto/list-external-accounts-query.dto';
import { UpdateExternalAccountDto } from './dto/update-external-account.dto';
import { ExternalBankAccount } from './entities/external-bank-account.entity';
import { DuplicateExternalAccountError } from './external-accounts.errors';
import { ExternalAccountsRepository } from './external-accounts.repository';
import { VerificationService } from './verification/verification.service';

const FINGERPRINT_INDEX = 'ux_external_bank_accounts_org_mode_fingerprint';

/** The rules of external bank accounts (docs/api.md §5.5). */
@Injectable()
export class ExternalAccountsService {
  constructor(
    private readonly db: Database,
    private readonly accounts: ExternalAccountsRepository,
    private readonly vault: AccountNumberVault,
    private readonly events: EventsService,
    private readonly verification: VerificationService,
  ) {}

  async create(
    caller: Caller,
    dto: CreateExternalAccountDto,
  ): Promise<ExternalBankAccountResponse> {
    const { organizationId, livemode } = caller.principal;
    assertOwnMerchant(organizationId, dto.organizationId, 'organizationId');
    const check = checkBankDetails(dto);
    if (!check.ok) throw new ValidationFailedError(check.errors);
    const { countryCode, currency, accountNumber, routingNumber } = check.details;

    const id = newId(ID_PREFIXES.externalBankAccount);
    const now = new Date();
    const account: ExternalBankAccount = {
      id,
      organizationId,
      livemode,
      countryCode,
      bankName: dto.bankName,
      currency,
      accountNumberEncrypted: this.vault.encrypt(accountNumber, id),
      last4: visibleLast4(accountNumber),
      fingerprint: this.vault.fingerprint(countryCode, routingNumber, accountNumber),
      routingNumber,
      accountHolderName: dto.accountHolderName,
      accountHolderType: dto.accountHolderType,
      status: 'pending',
      statusReason: null,
      metadata: dto.metadata ?? {},
      verificationSubmission: 1,
      verificationDueAt: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    // A new account is submitted for verification: due for the sandbox in test mode, waiting for
    // the operator in live mode (docs/verification.md).
    account.verificationDueAt = this.verification.dueAt(account, now);
    try {
      // The unique index decides between concurrent creates of the same account: one commits,
      // the others fail here, with no window between a check and the insert. The transaction
      // returns the response: with an Idempotency-Key it is stored in the same commit.
      return await this.db.transaction(async (m) => {
        await this.accounts.insert(m, account);
        const created = toExternalBankAccountResponse(account);
        await this.events.record(m, {
          ...caller,
          type: 'externalBankAccount.created',
          object: created,
        });
        return created;
      }, caller.commit);
    } catch (err) {
      if (isUniqueViolation(err, FINGERPRINT_INDEX)) throw new DuplicateExternalAccountError();
      throw err;
    }
  }

  async get(tenant: Tenant, id: string): Promise<ExternalBankAccountResponse> {
    const account = isIdOf(ID_PREFIXES.externalBankAccount, id)
      ? await this.db.read((m) => this.accounts.find(m, tenant, id))
      : null;
    if (!account) throw notFound(id);
    return toExternalBankAccountResponse(account);
  }

  async list(
    tenant: Tenant,
    query: ListExternalAccountsQueryDto,
  ): Promise<ListResponse<ExternalBankAccountResponse>> {
    const [rows, total] = await this.db.snapshot((m) =>
      this.accounts.page(m, tenant, query, query),
    );
    return toListResponse(rows.map(toExternalBankAccountResponse), total, query);
  }

  /**
   * Holder details, a resubmission for verification (status "new"), and metadata; bank details
   * never change and the status is the verification's (the DTO refuses both). The row is locked
   * for the read-modify-write, so concurrent PATCHes each see the other's metadata. Nothing is
   * written (updatedAt included) when nothing changes.
   */
  async update(
    caller: Caller,
    id: string,
    dto: UpdateExternalAccountDto,
    ifMatch?: string,
  ): Promise<ExternalBankAccountResponse> {
    if (!isIdOf(ID_PREFIXES.externalBankAccount, id)) throw notFound(id);
    return this.db.transaction(
      (m) =>
        lockedUpdate({
          load: () => this.accounts.find(m, caller.principal, id, true),
          notFound: () => notFound(id),
          view: toExternalBankAccountResponse,
          ifMatch,
          changes: (account) => {
            // A verified or errored account goes back to pending as a new submission, which
            // supersedes any verification of the previous one still running. A change of the
            // holder (what verification judges) is a new submission too, whatever the status.
            const resubmit = resubmits(account.status, {
              statusNew: dto.status === 'new',
              holderChanged: holderChanges(account, dto),
            });
            return {
              accountHolderName: dto.accountHolderName ?? undefined,
              accountHolderType: dto.accountHolderType ?? undefined,
              ...(resubmit
                ? {
                    status: 'pending' as const,
                    statusReason: null,
                    verificationSubmission: account.verificationSubmission + 1,
                    verificationDueAt: this.verification.dueAt(account, new Date()),
                  }
                : {}),
              metadata: mergeMetadata(account.metadata, dto.metadata),
            };
          },
          write: (account, changed) => this.accounts.update(m, account, changed),
          written: (before, after) =>
            this.events.recordUpdate(
              m,
              { ...caller, type: 'externalBankAccount.updated' },
              before,
              after,
            ),
        }),
      caller.commit,
    );
  }

  /** A soft delete: the account answers 404 from now on, and the same account may be added again. */
  async remove(
    caller: Caller,
    id: string,
    ifMatch?: string,
  ): Promise<DeletedExternalBankAccountResponse> {
    if (!isIdOf(ID_PREFIXES.externalBankAccount, id)) throw notFound(id);
    return this.db.transaction(async (m) => {
      const account = await this.accounts.find(m, caller.principal, id, true);
      if (!account) throw notFound(id);
      assertIfMatch(ifMatch, toExternalBankAccountResponse(account));
      const now = new Date();
      await this.accounts.softDelete(m, id, now);
      await this.events.record(m, {
        ...caller,
        type: 'externalBankAccount.deleted',
        object: toExternalBankAccountResponse({ ...account, deletedAt: now, updatedAt: now }),
      });
      return { id, object: 'externalBankAccount', deleted: true };
    }, caller.commit);
  }
}

/** 404, also for a malformed id or another organization's account. Built only when thrown. */
function notFound(id: string): NotFoundError {
  return new NotFoundError('externalBankAccount', id);
}
