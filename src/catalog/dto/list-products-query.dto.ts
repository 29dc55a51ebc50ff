import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { ListQueryDto } from '../../common/dto/list-query.dto';
import { IsMerchantId } from '../../common/merchant';

export class ListProductsQueryDto extends ListQueryDto {
  /** Only products of this merchant: your own organization id (another one answers 403). */
  @ApiPropertyOptional({ example: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  @IsOptional()
  @IsMerchantId()
  merchantId?: string;
}
