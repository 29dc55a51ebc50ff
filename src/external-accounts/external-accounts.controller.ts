import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../platform/caller';
import { ApiCommonResponses } from '../platform/api-docs';
import { IfMatch } from '../platform/etag';
import { Idempotent } from '../platform/idempotency/idempotent.decorator';
import { Created } from '../platform/created.decorator';
import { CreateExternalAccountDto } from './dto/create-external-account.dto';
import { ExternalBankAccountResponse } from './dto/external-bank-account.response';
import { ListExternalAccountsQueryDto } from './dto/list-external-accounts-query.dto';
import { UpdateExternalAccountDto } from './dto/update-external-account.dto';
import {
  ApiCreateExternalAccount,
  ApiDeleteExternalAccount,
  ApiGetExternalAccount,
  ApiListExternalAccounts,
  ApiUpdateExternalAccount,
} from './external-accounts.api-docs';
import { ExternalAccountsService } from './external-accounts.service';

/**
 * External bank accounts (docs/api.md §5.5). If-Match, 412, ETag and 304 are documented once for
 * every route; the error examples are in external-accounts.api-docs.ts.
 */
@ApiTags('External bank accounts')
@ApiCommonResponses()
@Controller('v0/externalAccounts')
export class ExternalAccountsController {
  constructor(private readonly accounts: ExternalAccountsService) {}

  /**
   * Create an external bank account
   *
   * @remarks The account starts `pending` and the service verifies it: the sandbox in test mode
   * (by the last four characters of the number), an operator in live mode. Each bank-detail rule has a code:
   * ACCOUNT_NUMBER_INVALID, IBAN_INVALID, IBAN_COUNTRY_MISMATCH, ROUTING_NUMBER_INVALID,
   * INVALID_COUNTRY, INVALID_CURRENCY. The account number is stored encrypted and never returned.
   */
  @Post()
  @Created(ExternalBankAccountResponse, { description: 'External bank account created' })
  @Idempotent()
  @ApiCreateExternalAccount()
  create(@CurrentCaller() caller: Caller, @Body() body: CreateExternalAccountDto) {
    return this.accounts.create(caller, body);
  }

  /** Retrieve an external bank account */
  @Get(':id')
  @ApiGetExternalAccount()
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.accounts.get(caller.principal, id);
  }

  /**
   * List external bank accounts
   *
   * @remarks Newest first (createdAt, then id); deleted accounts are not listed.
   */
  @Get()
  @ApiListExternalAccounts()
  list(@CurrentCaller() caller: Caller, @Query() query: ListExternalAccountsQueryDto) {
    return this.accounts.list(caller.principal, query);
  }

  /**
   * Update an external bank account
   *
   * @remarks Holder name and type, status and metadata (merged; a key set to null is removed).
   * `status` takes only `new`: it submits a verified or errored account for verification again,
   * and the account shows `pending` until the verification decides; the verification process
   * sets `pending`, `verified` and `errored`, never a client. Bank details never change: create a
   * new account instead.
   */
  @Patch(':id')
  @Idempotent()
  @ApiUpdateExternalAccount()
  update(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() body: UpdateExternalAccountDto,
    @IfMatch() ifMatch?: string,
  ) {
    return this.accounts.update(caller, id, body, ifMatch);
  }

  /**
   * Delete an external bank account
   *
   * @remarks From then on the account answers 404 (a second DELETE too), and the same bank
   * details may be added again.
   */
  @Delete(':id')
  @Idempotent()
  @ApiDeleteExternalAccount()
  remove(@CurrentCaller() caller: Caller, @Param('id') id: string, @IfMatch() ifMatch?: string) {
    return this.accounts.remove(caller, id, ifMatch);
  }
}
