import { IsBoolean, IsOptional } from 'class-validator';
import { ListQueryDto } from '../../common/pagination';
import { ToBoolean } from '../../common/validation/decorators';
import { IsIdShape } from './id-pattern';

export class ListPlansQueryDto extends ListQueryDto {
  /** Only plans of this product. */
  @IsOptional()
  @IsIdShape('prod', 'a product')
  productId?: string;

  /** Only plans of this merchant; must be your organization's id (403 otherwise). */
  @IsOptional()
  @IsIdShape('org', 'an organization')
  merchantId?: string;

  /** `true` to list deleted plans too (left out by default). */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  includeDeleted: boolean = false;
}
