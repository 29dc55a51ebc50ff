import { Inject, Module, OnModuleDestroy } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import passport from 'passport';
import { createApiKeyGuard } from './api-key.guard';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { AuthBootstrap } from './auth.bootstrap';
import { createBearerStrategy } from './bearer.strategy';
import { ApiKey } from './entities/api-key.entity';
import { Organization } from './entities/organization.entity';

/** This application instance's name for its bearer strategy in passport's registry. */
const BEARER_STRATEGY_NAME = Symbol('BEARER_STRATEGY_NAME');

/**
 * The bearer guard every route passes (unless @Public()); PlatformModule registers it as the
 * global guard, with the other APP_* providers.
 */
export const API_KEY_GUARD = Symbol('API_KEY_GUARD');

/** Organizations, API keys, the bearer strategy and guard. */
@Module({
  imports: [PassportModule, TypeOrmModule.forFeature([Organization, ApiKey])],
  providers: [
    ApiKeysRepository,
    ApiKeysService,
    AuthBootstrap,
    { provide: BEARER_STRATEGY_NAME, useFactory: () => `bearer-${randomUUID()}` },
    {
      provide: 'BEARER_STRATEGY',
      inject: [BEARER_STRATEGY_NAME, ApiKeysService],
      useFactory: createBearerStrategy,
    },
    {
      provide: API_KEY_GUARD,
      inject: [BEARER_STRATEGY_NAME, Reflector, ApiKeysService],
      useFactory: createApiKeyGuard,
    },
  ],
  exports: [ApiKeysService, API_KEY_GUARD],
})
export class AuthModule implements OnModuleDestroy {
  constructor(@Inject(BEARER_STRATEGY_NAME) private readonly strategyName: string) {}

  onModuleDestroy(): void {
    passport.unuse(this.strategyName);
  }
}
