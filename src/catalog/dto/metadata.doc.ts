import { ApiPropertyOptions } from '@nestjs/swagger';

/** How `metadata` reads in the OpenAPI document (the plugin cannot infer a Record type). */
export function metadataSchema(opts: { patch?: boolean } = {}): ApiPropertyOptions {
  const values = [{ type: 'string', maxLength: 500 }, { type: 'number' }, { type: 'boolean' }];
  return {
    type: 'object',
    additionalProperties: opts.patch ? { oneOf: values, nullable: true } : { oneOf: values },
    maxProperties: 50,
    example: opts.patch ? { tier: 'enterprise', legacy: null } : { tier: 'gold', seats: 5 },
  };
}
