import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { API_KEY_GUARD, AuthModule } from '../auth/auth.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { AppValidationPipe } from './validation.pipe';
import { AllExceptionsFilter } from './all-exceptions.filter';
import { RouteInputGuard } from './route-input.guard';
import { Metrics, MetricsServer } from './metrics';
import { RateLimiter } from './rate-limit';
import { RouteTable } from './route-table';

/**
 * What every request passes through, as Nest providers: the one place that registers the global
 * guard, pipe and filter (APP_*), in the order a request meets them. The Fastify hooks around
 * them are in request-path.ts.
 */
@Global()
@Module({
  imports: [AuthModule, IdempotencyModule],
  providers: [
    RouteTable,
    RateLimiter,
    // Prometheus metrics, served on METRICS_PORT by a server of their own (docs/metrics.md).
    Metrics,
    MetricsServer,
    // In the order a request meets them: the bearer guard, then (per route) the idempotency
    // claim of @Idempotent(), the validation pipe, and the filter for whatever is thrown.
    { provide: APP_GUARD, useExisting: API_KEY_GUARD },
    // After the bearer guard, so an unauthenticated request is a 401 whatever its query.
    { provide: APP_GUARD, useClass: RouteInputGuard },
    { provide: APP_PIPE, useClass: AppValidationPipe },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
  ],
  exports: [RouteTable, RateLimiter, Metrics, MetricsServer, IdempotencyModule],
})
export class PlatformModule {}
