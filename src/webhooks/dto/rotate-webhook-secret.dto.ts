import { ApiHideProperty } from '@nestjs/swagger';
import { NotAllowed } from '../../common/validation/decorators';

/**
 * rotateSecret takes no parameters: no body, or `{}`. Any field is a 400 `unknown_field`, as
 * every route answers for a field it does not take.
 */
export class RotateWebhookSecretDto {
  // The one field a client might think to send, refused like any other unknown field but saying
  // what happens instead. It also gives the class a rule, without which class-validator (with
  // forbidUnknownValues) would refuse every body, `{}` included.
  @ApiHideProperty()
  @NotAllowed(
    'is not a field of this request: rotateSecret makes the new secret itself',
    'unknown_field',
  )
  secret?: never;
}
