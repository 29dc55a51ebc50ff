import { Module } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { createApiKeyGuard } from './api-key.guard';
import { ApiKeysService } from './api-keys.service';
import { AuthBootstrap } from './auth.bootstrap';
import { ApiKey } from './entities/api-key.entity';
import { Organization } from './entities/organization.entity';

/** Organizations, API keys and the global bearer guard. */
@Module({
  imports: [TypeOrmModule.forFeature([Organization, ApiKey])],
  providers: [
    ApiKeysService,
    AuthBootstrap,
    { provide: APP_GUARD, inject: [Reflector, ApiKeysService], useFactory: createApiKeyGuard },
  ],
  exports: [ApiKeysService],
})
export class AuthModule {}
