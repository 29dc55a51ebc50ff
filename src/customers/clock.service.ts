import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Tenant } from '../common/tenant';
import { TestClocksRepository } from './test-clocks.repository';

/**
 * What time it is for a customer (docs/api.md §5.9): real time, or its test clock's
 * `frozenTime`. Everything that asks "now" for a customer asks here, inside its own transaction:
 * a subscription's default start, a usage event's default timestamp, a termination's `now`.
 */
@Injectable()
export class ClockService {
  constructor(private readonly clocks: TestClocksRepository) {}

  /** Real time when `testClockId` is null, else the clock's frozenTime (deleted clocks too). */
  async now(m: EntityManager, tenant: Tenant, testClockId: string | null): Promise<Date> {
    if (testClockId === null) return new Date();
    return (await this.clocks.frozenTime(m, tenant, testClockId)) ?? new Date();
  }
}
