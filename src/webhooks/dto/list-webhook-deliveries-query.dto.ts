import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { ListQueryDto } from '../../common/dto/list-query.dto';
import { IsIdShape, ToBoolean } from '../../common/validation/decorators';

export class ListWebhookDeliveriesQueryDto extends ListQueryDto {
  /** Only the attempts of this event. */
  @IsOptional()
  @IsIdShape('evt', 'an event')
  @ApiPropertyOptional({ example: 'evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  eventId?: string;

  /** Only successful (`true`) or failed (`false`) attempts. */
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'must be true or false' })
  @ApiPropertyOptional({ type: Boolean })
  succeeded?: boolean;
}
