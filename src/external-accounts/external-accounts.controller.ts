import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentOrganization } from '../auth/current-organization.decorator';
import { ApiCommonResponses } from '../common/http/api-docs';
import { IfMatch } from '../common/http/etag';
import { CreateExternalAccountDto } from './dto/create-external-account.dto';
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
import { Idempotent } from '../common/idempotency/idempotent.decorator';

@ApiTags('External bank accounts')
@ApiCommonResponses()
@Controller('v0/externalAccounts')
export class ExternalAccountsController {
  constructor(private readonly accounts: ExternalAccountsService) {}

  @Post()
  @Idempotent()
  @ApiCreateExternalAccount()
  create(@CurrentOrganization() org: string, @Body() body: CreateExternalAccountDto) {
    return this.accounts.create(org, body);
  }

  @Get(':id')
  @ApiGetExternalAccount()
  get(@CurrentOrganization() org: string, @Param('id') id: string) {
    return this.accounts.get(org, id);
  }

  @Get()
  @ApiListExternalAccounts()
  list(@CurrentOrganization() org: string, @Query() query: ListExternalAccountsQueryDto) {
    return this.accounts.list(org, query);
  }

  @Patch(':id')
  @Idempotent()
  @ApiUpdateExternalAccount()
  update(
    @CurrentOrganization() org: string,
    @Param('id') id: string,
    @Body() body: UpdateExternalAccountDto,
    @IfMatch() ifMatch?: string,
  ) {
    return this.accounts.update(org, id, body, ifMatch);
  }

  @Delete(':id')
  @Idempotent()
  @ApiDeleteExternalAccount()
  remove(@CurrentOrganization() org: string, @Param('id') id: string, @IfMatch() ifMatch?: string) {
    return this.accounts.remove(org, id, ifMatch);
  }
}
