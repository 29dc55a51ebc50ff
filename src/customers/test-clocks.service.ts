import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { ListQueryDto, ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { Tenant } from '../common/tenant';
import { parseInstant } from '../common/validation/instant';
import { Database } from '../database/database';
import { Caller } from '../platform/caller';
import { CustomersRepository } from './customers.repository';
import { TestClockInUseError, testClocksInLiveMode } from './customers.errors';
import { DeletedResponse } from './dto/customer.response';
import { CreateTestClockDto, TestClockResponse, toTestClockResponse } from './dto/test-clock.dto';
import { TestClock } from './entities/test-clock.entity';
import { TestClocksRepository } from './test-clocks.repository';

/** How far one advance may move a clock: two years (docs/api.md §5.9). */
export const MAX_ADVANCE_MONTHS = 24;

/**
 * A live key on a test-clock collection route: the routes do not exist in live mode (404). On a
 * clock's own routes a live key gets what a missing clock gets.
 */
/**
 * Test clocks (docs/api.md §5.9): create, read, list, delete. Advancing a clock runs billing
 * steps of the modules above this one; it lives in the subscriptions module (ClockAdvancer),
 * which asks `lockForAdvance` and `moveTo` here.
 */
@Injectable()
export class TestClocksService {
  constructor(
    private readonly db: Database,
    private readonly clocks: TestClocksRepository,
    private readonly customers: CustomersRepository,
  ) {}

  async create(caller: Caller, dto: CreateTestClockDto): Promise<TestClockResponse> {
    const tenant = caller.principal;
    if (tenant.livemode) throw testClocksInLiveMode();
    const now = new Date();
    const clock: TestClock = {
      id: newId(ID_PREFIXES.testClock),
      organizationId: tenant.organizationId,
      livemode: false,
      name: dto.name ?? null,
      frozenTime: parseInstant(dto.frozenTime)!,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
    return this.db.transaction(async (m) => {
      await this.clocks.insert(m, clock);
      return toTestClockResponse(clock);
    }, caller.commit);
  }

  async get(tenant: Tenant, id: string): Promise<TestClockResponse> {
    if (tenant.livemode) throw new NotFoundError('testClock', id);
    return toTestClockResponse(await this.db.read((m) => this.find(m, tenant, id)));
  }

  async list(tenant: Tenant, query: ListQueryDto): Promise<ListResponse<TestClockResponse>> {
    if (tenant.livemode) throw testClocksInLiveMode();
    const [clocks, total] = await this.db.snapshot((m) => this.clocks.page(m, tenant, query));
    return toListResponse(clocks.map(toTestClockResponse), total, query);
  }

  /** Deletes a clock without customers (409 TEST_CLOCK_IN_USE otherwise). */
  async remove(caller: Caller, id: string): Promise<DeletedResponse> {
    const tenant = caller.principal;
    if (tenant.livemode) throw new NotFoundError('testClock', id);
    return this.db.transaction(async (m) => {
      const clock = await this.find(m, tenant, id, true);
      if ((await this.customers.countOnClock(m, clock.id)) > 0) {
        throw new TestClockInUseError(clock.id);
      }
      const now = new Date();
      await this.clocks.update(m, clock.id, { deletedAt: now, updatedAt: now });
      return { id: clock.id, object: 'testClock', deleted: true as const };
    }, caller.commit);
  }

  /**
   * The clock locked for an advance to `to` (ISO text, validated already): 400 when `to` is
   * not later than its time or more than two years after it.
   */
  async lockForAdvance(m: EntityManager, tenant: Tenant, id: string, to: Date): Promise<TestClock> {
    if (tenant.livemode) throw new NotFoundError('testClock', id);
    const clock = await this.find(m, tenant, id, true);
    if (to.getTime() <= clock.frozenTime.getTime()) {
      throw ValidationFailedError.field(
        'frozenTime',
        'out_of_range',
        `must be later than the clock's current time ${clock.frozenTime.toISOString()}`,
      );
    }
    const limit = new Date(clock.frozenTime);
    limit.setUTCMonth(limit.getUTCMonth() + MAX_ADVANCE_MONTHS);
    if (to.getTime() > limit.getTime()) {
      throw ValidationFailedError.field(
        'frozenTime',
        'out_of_range',
        `must be at most two years after the clock's current time (${limit.toISOString()})`,
      );
    }
    return clock;
  }

  /** Sets the clock's time (an advance's steps move it forward one due instant at a time). */
  async moveTo(m: EntityManager, clock: TestClock, time: Date): Promise<TestClock> {
    const moved = { ...clock, frozenTime: time, updatedAt: new Date() };
    await this.clocks.update(m, clock.id, {
      frozenTime: moved.frozenTime,
      updatedAt: moved.updatedAt,
    });
    return moved;
  }

  /** The clock's view, for an advance's answer. */
  view(clock: TestClock): TestClockResponse {
    return toTestClockResponse(clock);
  }

  private async find(m: EntityManager, tenant: Tenant, id: string, lock = false) {
    const clock = isIdOf(ID_PREFIXES.testClock, id)
      ? await this.clocks.find(m, tenant, id, lock)
      : null;
    if (!clock) throw new NotFoundError('testClock', id);
    return clock;
  }
}
