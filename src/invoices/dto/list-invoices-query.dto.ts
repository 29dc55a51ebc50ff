import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { ListQueryDto } from '../../common/dto/list-query.dto';
import { IsIdShape } from '../../common/validation/decorators';
import { INVOICE_STATUSES, InvoiceStatus } from '../entities/invoice.entity';

export class ListInvoicesQueryDto extends ListQueryDto {
  /** Only invoices of this customer (a deleted customer's too). */
  @IsOptional()
  @IsIdShape('cus', 'a customer')
  customerId?: string;

  /** Only invoices of this subscription. */
  @IsOptional()
  @IsIdShape('sub', 'a subscription')
  subscriptionId?: string;

  /** Only invoices in this status. */
  @IsOptional()
  @IsString()
  @IsIn(INVOICE_STATUSES)
  @ApiPropertyOptional({ enum: INVOICE_STATUSES })
  status?: InvoiceStatus;
}
