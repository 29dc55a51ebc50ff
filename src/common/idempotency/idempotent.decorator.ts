import { UseInterceptors, applyDecorators } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * Marks a write route (POST, PATCH, DELETE under /v0) as honouring Idempotency-Key. Every such
 * route must carry it: IdempotencyModule refuses to start when one does not. It is a route
 * decorator rather than a global interceptor because Nest wraps every route that has any
 * interceptor in an RxJS chain with two AsyncResource bindings per request, about a tenth of
 * the CPU of a GET that never needs it (see BENCHMARKS.md).
 */
export function Idempotent(): MethodDecorator {
  return applyDecorators(UseInterceptors(IdempotencyInterceptor));
}
