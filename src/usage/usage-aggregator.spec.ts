import { EntityManager } from 'typeorm';
import { Database } from '../database/database';
import { MeteredMetric, UsageAggregator } from './usage-aggregator';
import { UsageEventsRepository, ValueRow } from './usage-events.repository';

/** The aggregator over rows a fake repository hands it (the SQL side is in test/usage). */
function aggregatorOver(rows: ValueRow[]): UsageAggregator {
  const events = { values: () => Promise.resolve(rows) } as unknown as UsageEventsRepository;
  return new UsageAggregator({ isPostgres: false } as Database, events);
}

const tenant = { organizationId: 'org_1', livemode: true };
const m = {} as EntityManager;
const t = new Date('2026-01-01T00:00:00.000Z');
const metric = (aggregation: MeteredMetric['aggregation']): MeteredMetric => ({
  id: 'bm_1',
  aggregation,
  valueProperty: aggregation === 'COUNT' ? null : '$.v',
  eventType: 'x',
});
const query = (aggregation: MeteredMetric['aggregation']) => ({
  customerId: 'cus_1',
  metric: metric(aggregation),
  from: t,
  to: new Date(t.getTime() + 1000),
});

describe('UsageAggregator.dynamic (the dynamic price of docs/api.md §5.12)', () => {
  it('sums value × the event’s own unitPrice exactly, and counts the events without one', async () => {
    const rows: ValueRow[] = [
      { timestamp: t, value: '3', unitPrice: '0.1' },
      { timestamp: t, value: 0.2, unitPrice: '0.000000000001' },
      { timestamp: t, value: '5', unitPrice: undefined },
      { timestamp: t, value: '2.5', unitPrice: '-1' },
      { timestamp: t, value: 'bad', unitPrice: '1' },
    ];
    await expect(aggregatorOver(rows).dynamic(m, tenant, query('SUM'))).resolves.toEqual({
      amount: '0.3000000000002',
      withoutUnitPrice: 2,
      valueWithoutUnitPrice: '7.5',
    });
  });

  it('takes each event as 1 for COUNT', async () => {
    const rows: ValueRow[] = [
      { timestamp: t, value: undefined, unitPrice: '0.25' },
      { timestamp: t, value: undefined, unitPrice: 0.5 },
      { timestamp: t, value: undefined, unitPrice: null },
    ];
    await expect(aggregatorOver(rows).dynamic(m, tenant, query('COUNT'))).resolves.toEqual({
      amount: '0.75',
      withoutUnitPrice: 1,
      valueWithoutUnitPrice: '1',
    });
  });
});
