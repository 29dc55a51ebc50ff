import { DynamicModule, Module, Type } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { AuthModule } from './auth/auth.module';
import { CatalogModule } from './catalog/catalog.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { CustomersModule } from './customers/customers.module';
import { SubscriptionsModule } from './subscriptions/subscriptions.module';
import { DatabaseModule } from './database/database.module';
import { EventsModule } from './events/events.module';
import { ExternalAccountsModule } from './external-accounts/external-accounts.module';
import { HealthModule } from './health/health.module';
import { loggerParams } from './platform/logging';
import { PlansModule } from './plans/plans.module';
import { InvoiceHooksModule } from './invoices/invoice-hooks';
import { PlatformModule } from './platform/platform.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { UsageModule } from './usage/usage.module';

/**
 * Wires the modules, layer by layer (docs/architecture.md); PlatformModule registers the global
 * guard, pipe and filter.
 */
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
        PlatformModule,
        HealthModule,
        CatalogModule,
        PlansModule,
        CustomersModule,
        SubscriptionsModule,
        ExternalAccountsModule,
        EventsModule,
        WebhooksModule,
        UsageModule,
        ...extraModules,
        // Last: a suite's own PERIOD_CLOSER and CLOCK_STEPS (an extra @Global() module) come first.
        InvoiceHooksModule,
      ],
    };
  }
}
