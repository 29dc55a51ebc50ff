import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { ListQueryDto } from '../../common/dto/list-query.dto';
import { IsMerchantId } from '../../common/merchant';

/**
 * docs/api.md §5.2: filters `productId`, and `merchantId` as products and plans take it (the
 * Paygentic SDK sends it): your own organization id, another answers 403.
 */
export class ListBillableMetricsQueryDto extends ListQueryDto {
  /** Only metrics of this merchant: your own organization id (another one answers 403). */
  @ApiPropertyOptional({ example: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  @IsOptional()
  @IsMerchantId()
  merchantId?: string;

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
