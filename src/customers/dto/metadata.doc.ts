import { ApiPropertyOptions } from '@nestjs/swagger';
import { metadataSchema as schema } from '../../common/validation/decorators';

/** How `metadata` reads in the OpenAPI document (the plugin cannot infer a Record type). */
export function metadataSchema(opts: { patch?: boolean } = {}): ApiPropertyOptions {
  return {
    ...schema({ allowNullValues: opts.patch }),
    example: opts.patch ? { segment: 'enterprise', legacy: null } : { segment: 'startup' },
  };
}
