import { Res, Type, applyDecorators } from '@nestjs/common';
import { PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ApiCreatedResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

type Handler = (...args: unknown[]) => unknown;

/**
 * The index after every parameter Nest injects into the handler so far (its own and those that
 * other decorators, such as @Idempotent(), added): a decorator that asks for one more takes it.
 */
export function nextRouteArgIndex(target: object, property: string | symbol): number {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, property) ??
    {}) as Record<string, { index: number }>;
  const declared = (Reflect.getMetadata('design:paramtypes', target, property) as unknown[]) ?? [];
  return Math.max(declared.length - 1, ...Object.values(args).map((a) => a.index)) + 1;
}

/**
 * Wraps a route handler: Nest calls `wrapped` with the handler's own arguments and one more at
 * `index`, which `wrapped` receives as `extra`. The handler's metadata (route, guards, docs) moves
 * to the wrapper.
 */
export function wrapRouteHandler(
  descriptor: PropertyDescriptor,
  index: number,
  wrapped: (handler: (args: unknown[]) => unknown, args: unknown[], extra: unknown) => unknown,
): void {
  const original = descriptor.value as Handler;
  const route = function (this: unknown, ...args: unknown[]): unknown {
    return wrapped((own) => original.apply(this, own), args.slice(0, index), args[index]);
  };
  for (const key of Reflect.getOwnMetadataKeys(original) as unknown[]) {
    Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, original), route);
  }
  Object.defineProperty(route, 'name', { value: original.name });
  descriptor.value = route;
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
