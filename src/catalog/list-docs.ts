import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';

/**
 * Documents `limit` and `offset` (API.md section 4). ListQueryDto lives outside the files the
 * Swagger plugin reads, so without this the OpenAPI document would show only the filters.
 */
export function ApiListQuery(): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      description: 'How many items to return, 1-100.',
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 10, example: 10 },
    }),
    ApiQuery({
      name: 'offset',
      required: false,
      description: 'How many items to skip, from 0.',
      schema: { type: 'integer', minimum: 0, default: 0, example: 0 },
    }),
  );
}
