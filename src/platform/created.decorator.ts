import { Res, SetMetadata, Type, applyDecorators } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { nextRouteArgIndex, wrapRouteHandler } from './route-handler';
import { ApiCreatedResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

/** Metadata on a create route's handler (`@Created`): its answer names a new resource. */
export const CREATED_ROUTE = 'billing:created-route';

/**
 * The `Location` of a create's answer: the path of the controller (`controller`) and the `id` of
 * what its handler returned; undefined for an answer without an id.
 */
export function locationOf(controller: object, result: unknown): string | undefined {
  const id = (result as { id?: unknown } | null | undefined)?.id;
  if (typeof id !== 'string') return undefined;
  return `/${String(Reflect.getMetadata(PATH_METADATA, controller) ?? '')}/${id}`;
}

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
      const result = await handler(args);
      const location = locationOf(target.constructor, result);
      if (location !== undefined) void (reply as FastifyReply).header('Location', location);
      return result;
    });
    return descriptor;
  };
  return applyDecorators(
    setLocation,
    SetMetadata(CREATED_ROUTE, true),
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
