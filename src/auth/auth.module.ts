import { Inject, Module, OnModuleDestroy } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import passport from 'passport';
import { createApiKeyGuard } from './api-key.guard';
import { ApiKeysService } from './api-keys.service';
import { AuthBootstrap } from './auth.bootstrap';
import { createBearerStrategy } from './bearer.strategy';
import { ApiKey } from './entities/api-key.entity';
import { Organization } from './entities/organization.entity';

/** This application instance's name for its bearer strategy in passport's registry. */
const BEARER_STRATEGY_NAME = Symbol('BEARER_STRATEGY_NAME');

/** Organizations, API keys and the global bearer guard. */
@Module({
  imports: [PassportModule, TypeOrmModule.forFeature([Organization, ApiKey])],
  providers: [
    ApiKeysService,
    AuthBootstrap,
    { provide: BEARER_STRATEGY_NAME, useFactory: () => `bearer-${randomUUID()}` },
    {
      provide: 'BEARER_STRATEGY',
      inject: [BEARER_STRATEGY_NAME, ApiKeysService],
      useFactory: createBearerStrategy,
    },
    {
      provide: APP_GUARD,
      inject: [BEARER_STRATEGY_NAME, Reflector, ApiKeysService],
      useFactory: createApiKeyGuard,
    },
  ],
  exports: [ApiKeysService],
})
export class AuthModule implements OnModuleDestroy {
  constructor(@Inject(BEARER_STRATEGY_NAME) private readonly strategyName: string) {}

  onModuleDestroy(): void {
    passport.unuse(this.strategyName);
  }
}
