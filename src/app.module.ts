import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { AuthModule } from './auth/auth.module';
import { CatalogModule } from './catalog/catalog.module';
import { AllExceptionsFilter } from './common/http/all-exceptions.filter';
import { KnownQueryModule } from './common/http/known-query.guard';
import { RateLimiter } from './common/http/rate-limit';
import { RouteTable } from './common/http/route-table';
import { IdempotencyModule } from './common/idempotency/idempotency.module';
import { AppValidationPipe } from './common/validation/validation.pipe';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { EventsModule } from './events/events.module';
import { ExternalAccountsModule } from './external-accounts/external-accounts.module';
import { HealthModule } from './health/health.module';
import { loggerParams } from './logging';
import { PlansModule } from './plans/plans.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/** Wires the modules; the global guard, pipe and filter are APP_* providers. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, logger: Logger, extraModules: Type[] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(loggerParams(logger)),
        DatabaseModule,
        AuthModule,
        // After AuthModule: its global guard runs after the bearer guard.
        KnownQueryModule,
        IdempotencyModule,
        HealthModule,
        CatalogModule,
        PlansModule,
        ExternalAccountsModule,
        EventsModule,
        WebhooksModule,
        ...extraModules,
      ],
      providers: [
        RouteTable,
        RateLimiter,
        { provide: APP_PIPE, useClass: AppValidationPipe },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
      ],
      exports: [RouteTable],
    };
  }
}
