import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsMerchantId } from '../../common/merchant';
import { IsBoolean, IsOptional } from 'class-validator';
import { ListQueryDto } from '../../common/dto/list-query.dto';
import { IsIdShape, ToBoolean } from '../../common/validation/decorators';

export class ListPlansQueryDto extends ListQueryDto {
  /** Only plans of this product. */
  @IsOptional()
  @IsIdShape('prod', 'a product')
  productId?: string;

  /** Only plans of this merchant; must be your organization's id (403 otherwise). */
  @IsOptional()
  @IsMerchantId()
  merchantId?: string;

  /** `true` to list deleted plans too (left out by default). */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  @ApiPropertyOptional()
  includeDeleted: boolean = false;
}
