import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import {
  TwoModeTenant,
  createCustomer,
  createMetric,
  createTwoModeTenant,
  sendUsage,
} from '../helpers/usage-factory';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The meter (docs/api.md §5.11): each aggregation over [from, to), exact decimal strings, in
 * windows of UTC hours and days; the same code counts invoices.
 */
describe(`usage: the meter (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acme: TwoModeTenant;
  let other: TwoModeTenant;
  /** Midnight UTC ten days ago: every event lies within the 90 days ingestion takes. */
  const day0 = Math.floor((Date.now() - 10 * DAY) / DAY) * DAY;
  let serial = 0;

  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTwoModeTenant(t, 'Acme');
    other = await createTwoModeTenant(t, 'Other');
  });
  afterAll(() => t.close());

  /** A metric, a customer, and its events (value at `$.v`), each at day0 + offset. */
  async function metered(
    aggregation: string,
    values: [offsetMs: number, value: unknown][],
    type = `t.${++serial}`,
  ) {
    const metric = await createMetric(t, acme.live, {
      aggregation,
      eventType: type,
      ...(aggregation === 'COUNT' ? {} : { valueProperty: '$.v' }),
    });
    const customer = await createCustomer(t, acme.live);
    if (values.length > 0) {
      await sendUsage(
        t,
        acme.live,
        values.map(([offset, v], i) => ({
          idempotencyKey: `${type}-${i}`,
          type,
          customerId: customer.id,
          timestamp: iso(day0 + offset),
          data: v === undefined ? {} : { v },
        })),
      ).expect(202);
    }
    return { metric, customer };
  }

  function meter(metricId: string, query: Record<string, unknown>, auth = acme.live.auth) {
    return t.http().get(`/v0/billableMetrics/${metricId}/meter`).query(query).set(auth);
  }

  const week = { from: iso(day0), to: iso(day0 + 7 * DAY) };

  it.each<[string, [number, unknown][], string]>([
    [
      'COUNT',
      [
        [0, undefined],
        [HOUR, undefined],
        [DAY, undefined],
      ],
      '3',
    ],
    [
      'SUM',
      [
        [0, '0.1'],
        [1, 0.2],
        [2, '1.000000000001'],
      ],
      '1.300000000001',
    ],
    [
      'SUM',
      [
        [0, '999999999999999999.999999999999'],
        [1, '0.000000000001'],
      ],
      '1000000000000000000',
    ],
    [
      'SUM',
      [
        [0, 1200],
        [1, '0.00002'],
      ],
      '1200.00002',
    ],
    [
      'MAX',
      [
        [0, '9.99'],
        [1, 10],
        [2, '10.000000000001'],
        [3, '2'],
      ],
      '10.000000000001',
    ],
    [
      'UNIQUE_COUNT',
      [
        [0, 'a'],
        [1, 'a'],
        [2, 1],
        [3, '1'],
        [4, 1],
      ],
      '3',
    ],
    [
      'LATEST',
      [
        [5, '1'],
        [9, '3.25'],
        [7, '2'],
      ],
      '3.25',
    ],
    ['LATEST', [], '0'],
    ['MAX', [], '0'],
    ['SUM', [], '0'],
  ])('%s of %j is %s', async (aggregation, values, expected) => {
    const { metric, customer } = await metered(aggregation, values);
    const res = await meter(metric.id, { customerId: customer.id, ...week }).expect(200);
    expect(res.body).toEqual({
      object: 'meter',
      billableMetricId: metric.id,
      customerId: customer.id,
      ...week,
      totalValue: expected,
      windowedValues: [],
    });
  });

  it('LATEST takes the one stored last among equal timestamps', async () => {
    const type = `t.${++serial}`;
    const { metric, customer } = await metered('LATEST', [[HOUR, '5']], type);
    await sendUsage(t, acme.live, [
      {
        idempotencyKey: `${type}-late`,
        type,
        customerId: customer.id,
        timestamp: iso(day0 + HOUR),
        data: { v: '7' },
      },
    ]).expect(202);
    const res = await meter(metric.id, { customerId: customer.id, ...week }).expect(200);
    expect(res.body.totalValue).toBe('7');
  });

  it('counts from ≤ timestamp < to, and only the customer’s events of the metric’s type', async () => {
    const { metric, customer } = await metered('SUM', [
      [0, '1'],
      [DAY - 1, '2'],
      [DAY, '4'],
    ]);
    const another = await createCustomer(t, acme.live);
    await sendUsage(t, acme.live, [
      {
        idempotencyKey: `x-${serial}`,
        type: metric.eventType,
        customerId: another.id,
        timestamp: iso(day0),
        data: { v: '100' },
      },
    ]).expect(202);
    const res = await meter(metric.id, {
      customerId: customer.id,
      from: iso(day0),
      to: iso(day0 + DAY),
    }).expect(200);
    expect(res.body.totalValue).toBe('3');
  });

  it('counts in UTC days and hours, every window listed, the first and last cut to the range', async () => {
    const { metric, customer } = await metered('SUM', [
      [0, '1.5'],
      [HOUR + 1, '2'],
      [DAY + 5 * HOUR, '0.25'],
    ]);
    const days = await meter(metric.id, {
      customerId: customer.id,
      from: iso(day0),
      to: iso(day0 + 3 * DAY),
      windowSize: 'day',
    }).expect(200);
    expect(days.body.totalValue).toBe('3.75');
    expect(days.body.windowedValues).toEqual([
      { windowStart: iso(day0), windowEnd: iso(day0 + DAY), value: '3.5' },
      { windowStart: iso(day0 + DAY), windowEnd: iso(day0 + 2 * DAY), value: '0.25' },
      { windowStart: iso(day0 + 2 * DAY), windowEnd: iso(day0 + 3 * DAY), value: '0' },
    ]);
    const hours = await meter(metric.id, {
      customerId: customer.id,
      from: iso(day0 + 30 * 60_000),
      to: iso(day0 + 2 * HOUR),
      windowSize: 'hour',
    }).expect(200);
    expect(hours.body.totalValue).toBe('2');
    expect(hours.body.windowedValues).toEqual([
      { windowStart: iso(day0 + 30 * 60_000), windowEnd: iso(day0 + HOUR), value: '0' },
      { windowStart: iso(day0 + HOUR), windowEnd: iso(day0 + 2 * HOUR), value: '2' },
    ]);
  });

  it('sums 12 fractional digits exactly over many events', async () => {
    const type = `t.${++serial}`;
    const metric = await createMetric(t, acme.live, {
      aggregation: 'SUM',
      eventType: type,
      valueProperty: '$.v',
    });
    const customer = await createCustomer(t, acme.live);
    for (let b = 0; b < 5; b++) {
      await sendUsage(
        t,
        acme.live,
        Array.from({ length: 1000 }, (_, i) => ({
          idempotencyKey: `${type}-${b}-${i}`,
          type,
          customerId: customer.id,
          timestamp: iso(day0 + b * 1000 + i),
          data: { v: i % 2 === 0 ? '0.000000000001' : 0.100000000001 },
        })),
      ).expect(202);
    }
    const res = await meter(metric.id, {
      customerId: customer.id,
      ...week,
      windowSize: 'day',
    }).expect(200);
    expect(res.body.totalValue).toBe('250.000000005');
    expect(res.body.windowedValues[0].value).toBe('250.000000005');
  });

  it('refuses a bad range, a missing customer, and another tenant’s metric or customer', async () => {
    const { metric, customer } = await metered('COUNT', []);
    const q = { customerId: customer.id, ...week };
    for (const [query, field] of [
      [{ ...q, to: q.from }, 'to'],
      [{ ...q, to: iso(day0 + 367 * DAY) }, 'to'],
      [{ ...q, from: '2026-01-01' }, 'from'],
      [{ ...q, windowSize: 'week' }, 'windowSize'],
      [{ from: q.from, to: q.to }, 'customerId'],
    ] as const) {
      const res = await meter(metric.id, query);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors[0].field).toBe(field);
    }
    const foreign = await createCustomer(t, other.live);
    const res = await meter(metric.id, { ...q, customerId: foreign.id });
    expectErrorEnvelope(res, 400, 'validation_error', 'CUSTOMER_NOT_FOUND');
    await meter(metric.id, q, acme.test.auth).expect(404);
    await meter(metric.id, q, other.live.auth).expect(404);
    await meter('bm_nope', q).expect(404);
  });
});
