import { Injectable } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, IsNull } from 'typeorm';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationFailedError,
  isUniqueViolation,
} from '../common/errors';
import { assertIfMatch } from '../common/http/etag';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { mergeMetadata, sameMetadata } from '../common/metadata';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { Database } from '../database/database.service';
import { EntityTable } from '../database/entity-table';
import { AccountNumberVault } from './account-number-vault';
import { applyStatusRequest } from './account-status';
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

const FINGERPRINT_INDEX = 'ux_external_bank_accounts_org_fingerprint';

export class DuplicateExternalAccountError extends ConflictError {
  constructor() {
    super(
      'DUPLICATE_EXTERNAL_ACCOUNT',
      'Your organization already has an external account with this country, routing number and account number',
    );
  }
}

/** The rules of external bank accounts (API.md section 5.5). */
@Injectable()
export class ExternalAccountsService {
  private statements?: {
    table: EntityTable<ExternalBankAccount>;
    find: string;
    findForUpdate: string;
    update: string;
  };

  constructor(
    private readonly db: Database,
    private readonly vault: AccountNumberVault,
  ) {}

  async create(
    organizationId: string,
    dto: CreateExternalAccountDto,
  ): Promise<ExternalBankAccountResponse> {
    if (dto.organizationId !== undefined && dto.organizationId !== organizationId) {
      throw new ForbiddenError(
        'organizationId must be your own organization (or left out): you cannot add external accounts to another one',
      );
    }
    const check = checkBankDetails(dto);
    if (!check.ok) throw new ValidationFailedError(check.errors);
    const { countryCode, currency, accountNumber, routingNumber } = check.details;

    const id = newId(ID_PREFIXES.externalBankAccount);
    const now = new Date();
    const account: ExternalBankAccount = {
      id,
      organizationId,
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
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    try {
      // The unique index decides between concurrent creates of the same account: one commits,
      // the others fail here, with no window between a check and the insert. The transaction
      // returns the response: with an Idempotency-Key it is stored in the same commit.
      return await this.db.transaction(async (m) => {
        await m.insert(ExternalBankAccount, account);
        return toExternalBankAccountResponse(account);
      });
    } catch (err) {
      if (isUniqueViolation(err, FINGERPRINT_INDEX)) throw new DuplicateExternalAccountError();
      throw err;
    }
  }

  async get(organizationId: string, id: string): Promise<ExternalBankAccountResponse> {
    const account = await this.db.read((m) => this.find(m, organizationId, id));
    return toExternalBankAccountResponse(account);
  }

  async list(
    organizationId: string,
    query: ListExternalAccountsQueryDto,
  ): Promise<ListResponse<ExternalBankAccountResponse>> {
    const where: FindOptionsWhere<ExternalBankAccount> = { organizationId, deletedAt: IsNull() };
    if (query.status !== undefined) where.status = query.status;
    if (query.currency !== undefined) where.currency = query.currency;
    if (query.countryCode !== undefined) where.countryCode = query.countryCode;
    const [rows, total] = await this.db.read((m) =>
      m.findAndCount(ExternalBankAccount, {
        where,
        order: { createdAt: 'DESC', id: 'DESC' },
        take: query.limit,
        skip: query.offset,
      }),
    );
    return toListResponse(rows.map(toExternalBankAccountResponse), total, query);
  }

  /**
   * Holder details, status and metadata; bank details never change (the DTO refuses them).
   * The row is locked for the read-modify-write, so concurrent PATCHes each see the other's
   * metadata. Nothing is written (updatedAt included) when nothing changes.
   */
  async update(
    organizationId: string,
    id: string,
    dto: UpdateExternalAccountDto,
    ifMatch?: string,
  ): Promise<ExternalBankAccountResponse> {
    return this.db.transaction(async (m) => {
      const account = await this.find(m, organizationId, id, true);
      const before = toExternalBankAccountResponse(account);
      assertIfMatch(ifMatch, before);
      const status = dto.status ? applyStatusRequest(account, dto.status) : account;
      const next: Partial<ExternalBankAccount> = {
        accountHolderName: dto.accountHolderName ?? account.accountHolderName,
        accountHolderType: dto.accountHolderType ?? account.accountHolderType,
        status: status.status,
        statusReason: status.statusReason,
        metadata: mergeMetadata(account.metadata, dto.metadata),
      };
      const changed =
        next.accountHolderName !== account.accountHolderName ||
        next.accountHolderType !== account.accountHolderType ||
        next.status !== account.status ||
        next.statusReason !== account.statusReason ||
        !sameMetadata(next.metadata!, account.metadata);
      if (!changed) return before;
      Object.assign(account, next);
      account.updatedAt = new Date();
      const { table, update } = this.sql;
      await this.db.execute(m, update, [
        account.accountHolderName,
        account.accountHolderType,
        account.status,
        account.statusReason,
        table.param('metadata', account.metadata),
        table.param('updatedAt', account.updatedAt),
        id,
      ]);
      return toExternalBankAccountResponse(account);
    });
  }

  /** A soft delete: the account answers 404 from now on, and the same account may be added again. */
  async remove(
    organizationId: string,
    id: string,
    ifMatch?: string,
  ): Promise<DeletedExternalBankAccountResponse> {
    return this.db.transaction(async (m) => {
      const account = await this.find(m, organizationId, id, true);
      assertIfMatch(ifMatch, toExternalBankAccountResponse(account));
      const now = new Date();
      await m.update(ExternalBankAccount, { id }, { deletedAt: now, updatedAt: now });
      return { id, object: 'externalBankAccount', deleted: true };
    });
  }

  /** A live account of this organization, or 404 (also for a malformed id or another's account). */
  private async find(
    m: EntityManager,
    organizationId: string,
    id: string,
    forUpdate = false,
  ): Promise<ExternalBankAccount> {
    // Built only when thrown: an Error captures a stack trace, which is not free.
    const notFound = () => new NotFoundError('external bank account', id);
    if (!isIdOf(ID_PREFIXES.externalBankAccount, id)) throw notFound();
    const { table, find, findForUpdate } = this.sql;
    const [row] = await this.db.rows(m, forUpdate ? findForUpdate : find, [id, organizationId]);
    if (!row) throw notFound();
    return table.fromRow(row);
  }

  /** The SQL of the hot paths, built once (the table's columns are known after start-up). */
  private get sql() {
    if (!this.statements) {
      const table = this.db.table(ExternalBankAccount);
      const find =
        `SELECT ${table.columnList()} FROM "external_bank_accounts" ` +
        'WHERE "id" = ? AND "organization_id" = ? AND "deleted_at" IS NULL LIMIT 1';
      this.statements = {
        table,
        find,
        findForUpdate: this.db.isPostgres ? `${find} FOR UPDATE` : find,
        update:
          'UPDATE "external_bank_accounts" SET "account_holder_name" = ?, "account_holder_type" = ?, ' +
          '"status" = ?, "status_reason" = ?, "metadata" = ?, "updated_at" = ? WHERE "id" = ?',
      };
    }
    return this.statements;
  }
}
