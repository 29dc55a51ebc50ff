import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { ListQueryDto } from '../../common/dto/list-query.dto';

/**
 * docs/api.md §5.2: the one filter is `productId`. `merchantId` is not one (every metric a key
 * sees is its organization's), so it is an unknown query parameter (docs/decisions.md).
 */
export class ListBillableMetricsQueryDto extends ListQueryDto {
  /**
   * Only metrics of this product. A product id of the wrong shape is a 400; a well-formed id
   * that is not one of your products matches nothing.
   */
  @ApiPropertyOptional({ example: 'prod_01JD3Y7K2M5N8P1Q4R6S9T0VWX' })
  @IsOptional()
  @IsString()
  @Matches(/^prod_[0-9A-Za-z]{16,40}$/, {
    context: { code: 'invalid_id' },
    message: 'must be a product id such as "prod_01JD3Y7K2M5N8P1Q4R6S9T0VWX"',
  })
  productId?: string;
}
