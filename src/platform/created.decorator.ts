import { Res, Type, applyDecorators } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { nextRouteArgIndex, wrapRouteHandler } from './route-handler';
import { ApiCreatedResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

/**
 * A create route: 201 with a `Location` header naming the new resource (the controller's path
 * and the `id` of what the handler returns), sent by every create and stored with an idempotent
 * answer, so a replay carries it too. Documents the 201 response with its header.
 */
export function Created(
  type: Type<unknown>,
  options: { description?: string; example?: unknown } = {},
): MethodDecorator {
  const setLocation: MethodDecorator = (target, property, descriptor) => {
    const index = nextRouteArgIndex(target, property);
    Res({ passthrough: true })(target, property, index);
    wrapRouteHandler(descriptor, index, async (handler, args, reply) => {
      const result = (await handler(args)) as { id?: unknown } | undefined;
      if (result && typeof result.id === 'string') {
        const base = String(Reflect.getMetadata(PATH_METADATA, target.constructor) ?? '');
        void (reply as FastifyReply).header('Location', `/${base}/${result.id}`);
      }
      return result;
    });
    return descriptor;
  };
  return applyDecorators(
    setLocation,
    ApiCreatedResponse({
      type,
      description: 'Created',
      ...options,
      headers: {
        Location: { description: 'The path of the new resource', schema: { type: 'string' } },
      },
    }),
  );
}
