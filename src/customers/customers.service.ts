import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { assertIfMatch } from '../common/etag';
import { NotFoundError } from '../common/errors';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { assertOwnMerchant } from '../common/merchant';
import { mergeMetadata } from '../common/metadata';
import { Tenant } from '../common/tenant';
import { Database } from '../database/database';
import { isUniqueViolation } from '../database/database-errors';
import { lockedUpdate } from '../database/locked-update';
import { Caller } from '../events/caller';
import { EventsService } from '../events/events.service';
import { CustomersRepository } from './customers.repository';
import {
  CustomerHasSubscriptionsError,
  DuplicateCustomerError,
  TestClockFullError,
  customerNotFound,
  testClockInLiveMode,
  testClockNotFound,
} from './customers.errors';
import { toAddress } from './dto/address.dto';
import { CreateCustomerDto } from './dto/create-customer.dto';
import { CustomerResponse, DeletedResponse, toCustomerResponse } from './dto/customer.response';
import { ListCustomersQueryDto } from './dto/list-customers-query.dto';
import { UpdateCustomerDto } from './dto/update-customer.dto';
import { Customer } from './entities/customer.entity';
import { TestClocksRepository } from './test-clocks.repository';

export { ClockService } from './clock.service';
export { TestClocksService } from './test-clocks.service';
export { customerNotFound } from './customers.errors';
export { AdvanceTestClockDto, TestClockResponse } from './dto/test-clock.dto';

/** The most customers one test clock holds (docs/api.md §5.9). */
export const TEST_CLOCK_CAPACITY = 100;

/** The unique index behind DUPLICATE_CUSTOMER (migration 1764000200000). */
const EXTERNAL_ID_INDEX = 'ux_customers_org_mode_external_id';

/** How a body names a customer: by its id, or by the merchant's own externalId. */
export interface CustomerRef {
  customerId?: string;
  externalCustomerId?: string;
}

/** A customer as other modules need it: its id and the clock it lives on (null: real time). */
export interface ResolvedCustomer {
  id: string;
  testClockId: string | null;
}

/**
 * The rules of customers (docs/api.md §5.8). Other modules reach customers through the methods
 * that take an EntityManager (`resolve`, `resolveMany`, `lockForSubscription`,
 * `countSubscriptions`), inside their own transaction.
 */
@Injectable()
export class CustomersService {
  constructor(
    private readonly db: Database,
    private readonly customers: CustomersRepository,
    private readonly clocks: TestClocksRepository,
    private readonly events: EventsService,
  ) {}

  async create(caller: Caller, dto: CreateCustomerDto): Promise<CustomerResponse> {
    const tenant = caller.principal;
    assertOwnMerchant(tenant.organizationId, dto.merchantId);
    const testClockId = dto.testClockId ?? null;
    if (testClockId !== null && tenant.livemode) throw testClockInLiveMode();
    return this.withDuplicateCheck(dto.externalId, () =>
      this.db.transaction(async (m) => {
        if (testClockId !== null) await this.assertClockHasRoom(m, tenant, testClockId);
        const now = new Date();
        const customer: Customer = {
          id: newId(ID_PREFIXES.customer),
          organizationId: tenant.organizationId,
          livemode: tenant.livemode,
          name: dto.name,
          email: dto.email,
          externalId: dto.externalId ?? null,
          address: toAddress(dto.address),
          taxId: dto.taxId ?? null,
          testClockId,
          metadata: dto.metadata ?? {},
          subscriptionCount: 0,
          createdAt: now,
          updatedAt: now,
          deletedAt: null,
        };
        await this.customers.insert(m, customer);
        const response = toCustomerResponse(customer);
        await this.events.record(m, { ...caller, type: 'customer.created', object: response });
        return response;
      }, caller.commit),
    );
  }

  async get(tenant: Tenant, id: string): Promise<CustomerResponse> {
    return toCustomerResponse(await this.db.read((m) => this.find(m, tenant, id)));
  }

  async list(
    tenant: Tenant,
    query: ListCustomersQueryDto,
  ): Promise<ListResponse<CustomerResponse>> {
    const [customers, total] = await this.db.snapshot((m) => this.customers.page(m, tenant, query));
    return toListResponse(customers.map(toCustomerResponse), total, query);
  }

  /** Changes the fields sent (metadata merged; address replaced); If-Match guards lost updates. */
  async update(
    caller: Caller,
    id: string,
    dto: UpdateCustomerDto,
    ifMatch?: string,
  ): Promise<CustomerResponse> {
    if (!isIdOf(ID_PREFIXES.customer, id)) throw new NotFoundError('customer', id);
    const tenant = caller.principal;
    return this.withDuplicateCheck(dto.externalId, () =>
      this.db.transaction(
        (m) =>
          lockedUpdate({
            load: () => this.customers.find(m, tenant, id, true),
            notFound: () => new NotFoundError('customer', id),
            view: toCustomerResponse,
            ifMatch,
            changes: (customer) => ({
              name: dto.name,
              email: dto.email,
              externalId: dto.externalId,
              address: dto.address === undefined ? undefined : toAddress(dto.address),
              taxId: dto.taxId,
              metadata: mergeMetadata(customer.metadata, dto.metadata),
            }),
            write: (_, changed) => this.customers.update(m, id, changed),
            written: (before, after) =>
              this.events.recordUpdate(m, { ...caller, type: 'customer.updated' }, before, after),
          }),
        caller.commit,
      ),
    );
  }

  /** Deletes a customer without active or pending subscriptions (409 otherwise). */
  async remove(caller: Caller, id: string, ifMatch?: string): Promise<DeletedResponse> {
    const tenant = caller.principal;
    return this.db.transaction(async (m) => {
      const customer = await this.find(m, tenant, id, true);
      assertIfMatch(ifMatch, toCustomerResponse(customer));
      if (customer.subscriptionCount > 0) throw new CustomerHasSubscriptionsError(customer.id);
      const now = new Date();
      await this.customers.update(m, customer.id, { deletedAt: now, updatedAt: now });
      await this.events.record(m, {
        ...caller,
        type: 'customer.deleted',
        object: toCustomerResponse({ ...customer, updatedAt: now }),
      });
      return { id: customer.id, object: 'customer', deleted: true as const };
    }, caller.commit);
  }

  /**
   * The customer a body names, by `customerId` or `externalCustomerId` (the id wins when both
   * are sent), of the tenant and not deleted: 400 CUSTOMER_NOT_FOUND on `field` otherwise.
   */
  async resolve(
    m: EntityManager,
    tenant: Tenant,
    ref: CustomerRef,
    field = ref.customerId !== undefined ? 'customerId' : 'externalCustomerId',
  ): Promise<ResolvedCustomer> {
    const [found] = await this.resolveMany(m, tenant, [ref]);
    if (!found) throw customerNotFound(field, ref.customerId ?? ref.externalCustomerId ?? '');
    return found;
  }

  /**
   * The customers many refs name, in one query, in the order of `refs`: null for a ref that
   * names no customer of the tenant (deleted ones included). For a batch of usage events.
   */
  async resolveMany(
    m: EntityManager,
    tenant: Tenant,
    refs: CustomerRef[],
  ): Promise<(ResolvedCustomer | null)[]> {
    const ids = new Set<string>();
    const externalIds = new Set<string>();
    for (const ref of refs) {
      if (ref.customerId !== undefined) {
        if (isIdOf(ID_PREFIXES.customer, ref.customerId)) ids.add(ref.customerId);
      } else if (ref.externalCustomerId !== undefined) {
        externalIds.add(ref.externalCustomerId);
      }
    }
    const rows = await this.customers.findMany(m, tenant, [...ids], [...externalIds]);
    const byId = new Map(rows.map((c) => [c.id, c]));
    const byExternalId = new Map(rows.filter((c) => c.externalId).map((c) => [c.externalId, c]));
    return refs.map((ref) => {
      const row =
        ref.customerId !== undefined
          ? byId.get(ref.customerId)
          : ref.externalCustomerId !== undefined
            ? byExternalId.get(ref.externalCustomerId)
            : undefined;
      return row ? { id: row.id, testClockId: row.testClockId } : null;
    });
  }

  /**
   * The customer a subscription write names, locked (so that two writes for one customer take
   * turns): 400 CUSTOMER_NOT_FOUND on `customerId` when it is not the tenant's or was deleted.
   */
  async lockForSubscription(
    m: EntityManager,
    tenant: Tenant,
    id: string,
  ): Promise<ResolvedCustomer> {
    const customer = isIdOf(ID_PREFIXES.customer, id)
      ? await this.customers.find(m, tenant, id, true)
      : null;
    if (!customer) throw customerNotFound('customerId', id);
    return { id: customer.id, testClockId: customer.testClockId };
  }

  /** Adds `delta` to the customer's count of active and pending subscriptions. */
  countSubscriptions(m: EntityManager, customerId: string, delta: number): Promise<void> {
    return this.customers.addSubscriptions(m, customerId, delta);
  }

  /** The tenant's clock, locked, with room for one more customer (400 / 409 otherwise). */
  private async assertClockHasRoom(m: EntityManager, tenant: Tenant, id: string): Promise<void> {
    // Locked: two creates on one clock take turns, so neither takes the 101st place.
    const clock = await this.clocks.find(m, tenant, id, true);
    if (!clock) throw testClockNotFound(id);
    if ((await this.customers.countOnClock(m, clock.id)) >= TEST_CLOCK_CAPACITY) {
      throw new TestClockFullError(clock.id, TEST_CLOCK_CAPACITY);
    }
  }

  private async find(m: EntityManager, tenant: Tenant, id: string, lock = false) {
    const customer = isIdOf(ID_PREFIXES.customer, id)
      ? await this.customers.find(m, tenant, id, lock)
      : null;
    if (!customer) throw new NotFoundError('customer', id);
    return customer;
  }

  /** Runs a write, turning a lost race on the externalId index into 409 DUPLICATE_CUSTOMER. */
  private async withDuplicateCheck<T>(
    externalId: string | null | undefined,
    write: () => Promise<T>,
  ): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (externalId && isUniqueViolation(err, EXTERNAL_ID_INDEX)) {
        throw new DuplicateCustomerError(externalId);
      }
      throw err;
    }
  }
}
