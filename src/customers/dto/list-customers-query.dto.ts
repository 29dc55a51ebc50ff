import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { ListQueryDto } from '../../common/dto/list-query.dto';

export class ListCustomersQueryDto extends ListQueryDto {
  /** Only customers with exactly this email address. */
  @ApiPropertyOptional({ example: 'jane@example.com' })
  @IsOptional()
  @IsString()
  @MaxLength(254, { context: { code: 'too_long' } })
  email?: string;

  /** Only the customer with this external id. */
  @ApiPropertyOptional({ example: 'crm-4711' })
  @IsOptional()
  @IsString()
  @MaxLength(200, { context: { code: 'too_long' } })
  externalId?: string;
}
