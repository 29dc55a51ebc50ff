import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';

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
