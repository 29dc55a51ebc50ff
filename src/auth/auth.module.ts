import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysService } from './api-keys.service';
import { AuthBootstrap } from './auth.bootstrap';
import { BearerStrategy } from './bearer.strategy';
import { ApiKey } from './entities/api-key.entity';
import { Organization } from './entities/organization.entity';

/** Organizations, API keys and the global bearer guard. */
@Module({
  imports: [PassportModule, TypeOrmModule.forFeature([Organization, ApiKey])],
  providers: [
    ApiKeysService,
    BearerStrategy,
    AuthBootstrap,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
  ],
  exports: [ApiKeysService],
})
export class AuthModule {}
