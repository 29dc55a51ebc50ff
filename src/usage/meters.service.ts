import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { Tenant } from '../common/tenant';
import { CatalogService } from '../catalog/catalog.service';
import { CustomersService } from '../customers/customers.service';
import { Database } from '../database/database';
import { MeterQueryDto, MeterResponse } from './dto/meter.dto';
import { UsageAggregator } from './usage-aggregator';

/**
 * The meter (docs/api.md §5.11): one customer's usage of one metric over [from, to), counted by
 * UsageAggregator, the code the invoices count with.
 */
@Injectable()
export class MetersService {
  constructor(
    private readonly db: Database,
    private readonly catalog: CatalogService,
    private readonly customers: CustomersService,
    private readonly aggregator: UsageAggregator,
  ) {}

  async meter(tenant: Tenant, metricId: string, query: MeterQueryDto): Promise<MeterResponse> {
    const from = new Date(query.from);
    const to = new Date(query.to);
    if (to <= from) {
      throw ValidationFailedError.field('to', 'invalid_range', 'must be after from');
    }
    if (to > addOneYear(from)) {
      throw ValidationFailedError.field(
        'to',
        'invalid_range',
        'must be at most one year after from',
      );
    }
    return this.db.snapshot(async (m) => {
      const metric = await this.catalog.meteringRules(m, tenant, metricId);
      if (!metric) throw new NotFoundError('billableMetric', metricId);
      const [customer] = await this.customers.resolveMany(m, tenant, [
        { customerId: query.customerId },
      ]);
      if (!customer) {
        throw ValidationFailedError.field(
          'customerId',
          'customer_not_found',
          'names no customer of yours (in this mode)',
        );
      }
      const q = { customerId: customer.id, metric, from, to };
      const totalValue = await this.aggregator.aggregate(m, tenant, q);
      const windows = query.windowSize
        ? await this.aggregator.windows(m, tenant, q, query.windowSize)
        : [];
      return {
        object: 'meter' as const,
        billableMetricId: metric.id,
        customerId: customer.id,
        from: from.toISOString(),
        to: to.toISOString(),
        totalValue,
        windowedValues: windows.map((w) => ({
          windowStart: w.windowStart.toISOString(),
          windowEnd: w.windowEnd.toISOString(),
          value: w.value,
        })),
      };
    });
  }
}

/** The same instant a calendar year later, in UTC (29 February → 28 February). */
function addOneYear(date: Date): Date {
  const next = new Date(date);
  next.setUTCFullYear(date.getUTCFullYear() + 1);
  if (next.getUTCDate() !== date.getUTCDate()) next.setUTCDate(0);
  return next;
}
