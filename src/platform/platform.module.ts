import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { IdempotencyModule } from '../common/idempotency/idempotency.module';
import { AppValidationPipe } from '../common/validation/validation.pipe';
import { AllExceptionsFilter } from './all-exceptions.filter';
import { RateLimiter } from './rate-limit';
import { RouteTable } from './route-table';

/**
 * What every request passes through, as Nest providers: the one place that registers the global
 * guard, pipe and filter (APP_*), in the order a request meets them. The Fastify hooks around
 * them are in request-path.ts.
 */
@Global()
@Module({
  imports: [IdempotencyModule],
  providers: [
    RouteTable,
    RateLimiter,
    { provide: APP_PIPE, useClass: AppValidationPipe },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
  ],
  exports: [RouteTable, RateLimiter, IdempotencyModule],
})
export class PlatformModule {}
