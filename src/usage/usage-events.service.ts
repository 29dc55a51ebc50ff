import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { FieldError, NotFoundError, ValidationFailedError } from '../common/errors';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { Tenant } from '../common/tenant';
import { CatalogService, MeteringRules } from '../catalog/catalog.service';
import { ClockService, CustomersService } from '../customers/customers.service';
import { Database } from '../database/database';
import { Caller } from '../events/caller';
import { IngestUsageEventsResponse } from './dto/ingest-usage-events.dto';
import { ListUsageEventsQueryDto } from './dto/list-usage-events-query.dto';
import {
  UsageEventListResponse,
  UsageEventResponse,
  toUsageEventResponse,
} from './dto/usage-event.response';
import { UsageEvent } from './entities/usage-event.entity';
import { UsageEventInput, readUsageEvents } from './usage-event-input';
import { UsageEventsRepository } from './usage-events.repository';
import { decimalValue, pathOf, uniqueKey, valueAt, valueField } from './usage-values';

/** docs/api.md §5.11: a timestamp is at most this far before the customer's now... */
const MAX_LATENESS_MS = 90 * 86_400_000;
/** ...and at most this far after it. */
const MAX_EARLINESS_MS = 5 * 60_000;

/**
 * The rules of usage events (docs/api.md §5.11): a batch is read, checked against the customers
 * and billable metrics of the caller's organization and mode, and stored in one transaction, all
 * or nothing, each idempotency key once. Ingesting records no event (§5.6).
 */
@Injectable()
export class UsageEventsService {
  constructor(
    private readonly db: Database,
    private readonly events: UsageEventsRepository,
    private readonly catalog: CatalogService,
    private readonly customers: CustomersService,
    private readonly clock: ClockService,
  ) {}

  /**
   * Stores the events whose keys are new; the answer comes once the transaction has committed,
   * so every accepted event is on disk (docs/decisions.md, usage).
   */
  async ingest(caller: Caller, body: unknown): Promise<IngestUsageEventsResponse> {
    const tenant = caller.principal;
    const read = readUsageEvents(body);
    if (read.events.length === 0 && read.errors.length > 0) {
      throw new ValidationFailedError(read.errors);
    }
    return this.db.transaction(async (m) => {
      const errors = [...read.errors];
      const rows = await this.checked(m, tenant, read.events, errors);
      if (errors.length > 0) throw new ValidationFailedError(inRequestOrder(errors));
      const accepted = await this.events.insertNew(m, rows);
      return { accepted, duplicates: read.events.length - accepted };
    }, caller.commit);
  }

  /**
   * The rows to store: one per idempotency key (the first event that holds it), with its
   * customer, its timestamp (now on the customer's clock by default, and within the window of
   * §5.11) and a valid value for every metric that counts its type. Problems go on `errors`.
   */
  private async checked(
    m: EntityManager,
    tenant: Tenant,
    inputs: UsageEventInput[],
    errors: FieldError[],
  ): Promise<UsageEvent[]> {
    const customers = await this.customers.resolveMany(
      m,
      tenant,
      inputs.map((e) => e.customer),
    );
    const metrics = await this.catalog.meteringRulesOfTypes(m, tenant, [
      ...new Set(inputs.map((e) => e.type)),
    ]);
    const metricsOfType = new Map<string, MeteringRules[]>();
    for (const metric of metrics) {
      const type = metric.eventType ?? metric.id;
      metricsOfType.set(type, [...(metricsOfType.get(type) ?? []), metric]);
    }
    const nowOfClock = new Map<string | null, Date>();
    const seen = new Set<string>();
    const rows: UsageEvent[] = [];
    const createdAt = new Date();
    for (let i = 0; i < inputs.length; i++) {
      const input = inputs[i];
      const at = `events[${input.index}]`;
      const customer = customers[i];
      for (const metric of metricsOfType.get(input.type) ?? []) {
        const problem = valueProblem(input, metric);
        if (problem) errors.push(problem);
      }
      if (!customer) {
        const byId = input.customer.customerId !== undefined;
        errors.push({
          field: `${at}.${byId ? 'customerId' : 'externalCustomerId'}`,
          code: 'customer_not_found',
          message: byId
            ? 'names no customer of yours (in this mode)'
            : 'is the externalId of no customer of yours (in this mode)',
        });
        continue;
      }
      let now = nowOfClock.get(customer.testClockId);
      if (now === undefined) {
        now = await this.clock.now(m, tenant, customer.testClockId);
        nowOfClock.set(customer.testClockId, now);
      }
      const timestamp = input.timestamp ?? now;
      const offset = timestamp.getTime() - now.getTime();
      if (offset < -MAX_LATENESS_MS || offset > MAX_EARLINESS_MS) {
        errors.push({
          field: `${at}.timestamp`,
          code: 'timestamp_out_of_range',
          message: `must be from ${new Date(now.getTime() - MAX_LATENESS_MS).toISOString()} to ${new Date(now.getTime() + MAX_EARLINESS_MS).toISOString()} (now on the customer's clock: 90 days back, 5 minutes ahead)`,
        });
        continue;
      }
      if (seen.has(input.idempotencyKey)) continue;
      seen.add(input.idempotencyKey);
      rows.push({
        id: newId(ID_PREFIXES.usageEvent),
        organizationId: tenant.organizationId,
        livemode: tenant.livemode,
        idempotencyKey: input.idempotencyKey,
        customerId: customer.id,
        type: input.type,
        timestamp,
        data: input.data,
        createdAt,
      });
    }
    return rows;
  }

  async get(tenant: Tenant, id: string): Promise<UsageEventResponse> {
    const event = isIdOf(ID_PREFIXES.usageEvent, id)
      ? await this.db.read((m) => this.events.findOne(m, tenant, id))
      : null;
    if (!event) throw new NotFoundError('usageEvent', id);
    return toUsageEventResponse(event);
  }

  /** A cursor page, newest first (docs/api.md §4, as GET /v0/events). */
  async list(tenant: Tenant, query: ListUsageEventsQueryDto): Promise<UsageEventListResponse> {
    const rows = await this.db.read(async (m) => {
      if (query.startingAfter !== undefined) {
        const cursor = await this.events.findOne(m, tenant, query.startingAfter);
        if (!cursor) {
          throw ValidationFailedError.field(
            'startingAfter',
            'unknown_cursor',
            'must be the id of one of your usage events (in this mode)',
          );
        }
      }
      return this.events.page(m, {
        tenant,
        limit: query.limit + 1,
        customerId: query.customerId,
        type: query.type,
        from: query.from === undefined ? undefined : new Date(query.from),
        to: query.to === undefined ? undefined : new Date(query.to),
        before: query.startingAfter,
      });
    });
    return {
      data: rows.slice(0, query.limit).map(toUsageEventResponse),
      pagination: { limit: query.limit, hasMore: rows.length > query.limit },
    };
  }
}

/** The problem of an event's value for a metric that counts its type, if any. */
function valueProblem(input: UsageEventInput, metric: MeteringRules): FieldError | undefined {
  if (metric.aggregation === 'COUNT' || metric.valueProperty === null) return undefined;
  const raw = valueAt(input.data, pathOf(metric.valueProperty));
  const field = valueField(input.index, metric.valueProperty);
  if (raw === undefined || raw === null) {
    return {
      field,
      code: 'required',
      message: `is required: billable metric ${metric.id} (${metric.aggregation}) counts this event type`,
    };
  }
  if (metric.aggregation === 'UNIQUE_COUNT') {
    if (uniqueKey(raw) !== undefined) return undefined;
    return { field, code: 'invalid_type', message: 'must be a string or a number (UNIQUE_COUNT)' };
  }
  if (decimalValue(raw) !== undefined) return undefined;
  return {
    field,
    code: 'invalid_decimal',
    message:
      'must be a non-negative decimal string such as "12.5" (at most 18 integer and 12 fractional digits) or a non-negative JSON number written without an exponent',
  };
}

/** Problems sorted by the event they name (the body's own first), each event's in its order. */
function inRequestOrder(errors: FieldError[]): FieldError[] {
  const indexOf = (e: FieldError) => {
    const match = /^events\[(\d+)\]/.exec(e.field);
    return match ? Number(match[1]) : -1;
  };
  return errors
    .map((error, i) => ({ error, i, index: indexOf(error) }))
    .sort((a, b) => a.index - b.index || a.i - b.i)
    .map((x) => x.error);
}
