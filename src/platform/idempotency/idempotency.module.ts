import { Injectable, Module, OnModuleInit, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryModule, DiscoveryService, MetadataScanner } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyRecord } from './idempotency-record.entity';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';
import { IDEMPOTENT_ROUTE } from './idempotent.decorator';

const WRITE_METHODS = new Set([
  RequestMethod.POST,
  RequestMethod.PUT,
  RequestMethod.PATCH,
  RequestMethod.DELETE,
]);

/**
 * Start-up check: every write route of every controller under /v0 carries @Idempotent(). A
 * module added later cannot silently ignore the Idempotency-Key its clients send.
 */
@Injectable()
export class IdempotentRoutesCheck implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  onModuleInit(): void {
    const missing: string[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!controller) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
      if (!/^\/?v0(\/|$)/.test(base)) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as object;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined || !WRITE_METHODS.has(method)) continue;
        if (Reflect.getMetadata(IDEMPOTENT_ROUTE, handler) === undefined) {
          missing.push(`${controller.name}.${name}`);
        }
      }
    }
    if (missing.length > 0) {
      throw new Error(
        `Write routes without @Idempotent(): ${missing.join(', ')}. Every POST, PUT, PATCH ` +
          'and DELETE under /v0 must honour Idempotency-Key.',
      );
    }
  }
}

/**
 * Idempotency-Key on every POST, PATCH and DELETE of /v0: routes opt in with @Idempotent(),
 * and IdempotentRoutesCheck makes the opt-in compulsory.
 */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyRecord]), DiscoveryModule],
  providers: [IdempotencyRepository, IdempotencyService, IdempotentRoutesCheck],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
