import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { IsCountryCode, IsCurrencyCode } from '../../common/iso';
import { ListQueryDto } from '../../common/dto/list-query.dto';
import { ACCOUNT_STATUSES, AccountStatus } from '../account-status';

/** docs/api.md §5.5: the filters are `status`, `currency` and `countryCode`, and no other. */
export class ListExternalAccountsQueryDto extends ListQueryDto {
  /** Only accounts with this status. */
  @IsOptional()
  @IsIn(ACCOUNT_STATUSES, { message: 'must be "pending", "verified" or "errored"' })
  @ApiPropertyOptional({ enum: ACCOUNT_STATUSES })
  status?: AccountStatus;

  /** Only accounts in this ISO 4217 currency. */
  @IsOptional()
  @IsCurrencyCode()
  @ApiPropertyOptional({ example: 'USD' })
  currency?: string;

  /** Only accounts at banks in this ISO 3166-1 alpha-2 country. */
  @IsOptional()
  @IsCountryCode()
  @ApiPropertyOptional({ example: 'US' })
  countryCode?: string;
}
