import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyRecord } from './idempotency-record.entity';
import { IdempotencyGuard } from './idempotency.guard';
import { IdempotencyService } from './idempotency.service';

/**
 * Idempotency-Key on every POST, PATCH and DELETE of /v0, with no code in the modules. The
 * guard must run after AuthModule's: AppModule imports AuthModule first, and Nest applies global
 * guards in that order.
 */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyRecord])],
  providers: [IdempotencyService, { provide: APP_GUARD, useClass: IdempotencyGuard }],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
