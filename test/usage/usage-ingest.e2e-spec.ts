import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import {
  TwoModeTenant,
  createCustomer,
  createMetric,
  createTwoModeTenant,
  sendUsage,
} from '../helpers/usage-factory';

const minutes = (n: number) => n * 60_000;
const days = (n: number) => n * 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe(`usage events: ingestion (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acme: TwoModeTenant;
  let other: TwoModeTenant;
  let customer: { id: string; externalId: string };
  let key = 0;
  const nextKey = () => `key-${++key}`;

  /** How many events the customer has stored (through the list, 100 at a time). */
  async function storedCount(customerId = customer.id, auth = acme.live.auth): Promise<number> {
    let count = 0;
    let after: string | undefined;
    for (;;) {
      const res = await t
        .http()
        .get('/v0/usageEvents')
        .query({ customerId, limit: 100, ...(after ? { startingAfter: after } : {}) })
        .set(auth)
        .expect(200);
      count += res.body.data.length;
      if (!res.body.pagination.hasMore) return count;
      after = res.body.data[res.body.data.length - 1].id;
    }
  }

  const event = (overrides: Record<string, unknown> = {}) => ({
    idempotencyKey: nextKey(),
    type: 'api.call',
    customerId: customer.id,
    ...overrides,
  });

  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTwoModeTenant(t, 'Acme');
    other = await createTwoModeTenant(t, 'Other');
    customer = await createCustomer(t, acme.live);
    await createMetric(t, acme.live, {
      aggregation: 'SUM',
      valueProperty: '$.tokens',
      eventType: 'llm.tokens',
    });
  });
  afterAll(() => t.close());

  it('stores a batch and answers 202 with accepted and duplicates; a retry stores nothing', async () => {
    const events = [
      event(),
      event({ externalCustomerId: customer.externalId, customerId: undefined }),
    ];
    const first = await sendUsage(t, acme.live, events).expect(202);
    expect(first.body).toEqual({ accepted: 2, duplicates: 0 });
    const again = await sendUsage(t, acme.live, events).expect(202);
    expect(again.body).toEqual({ accepted: 0, duplicates: 2 });
    expect(await storedCount()).toBe(2);
  });

  it('counts a key repeated inside one request once, whatever else the event holds', async () => {
    const k = nextKey();
    const res = await sendUsage(t, acme.live, [
      event({ idempotencyKey: k, data: { a: 1 } }),
      event({ idempotencyKey: k, data: { a: 2 } }),
      event(),
    ]).expect(202);
    expect(res.body).toEqual({ accepted: 2, duplicates: 1 });
    const list = await t
      .http()
      .get('/v0/usageEvents')
      .query({ customerId: customer.id, limit: 3 })
      .set(acme.live.auth)
      .expect(200);
    const kept = list.body.data.find((e: { idempotencyKey: string }) => e.idempotencyKey === k);
    expect(kept.data).toEqual({ a: 1 });
  });

  it('shows an event as stored, by id and in the list, and 404s the other mode', async () => {
    const timestamp = iso(Date.now() - minutes(10));
    const k = nextKey();
    await sendUsage(t, acme.live, [
      event({
        idempotencyKey: k,
        timestamp,
        type: 'llm.tokens',
        data: { tokens: '0.00002', m: { x: [1, 'a'] } },
      }),
    ]).expect(202);
    const list = await t
      .http()
      .get('/v0/usageEvents')
      .query({ type: 'llm.tokens', limit: 1 })
      .set(acme.live.auth)
      .expect(200);
    const [shown] = list.body.data;
    expect(shown).toEqual({
      id: expect.stringMatching(/^uev_[0-9A-Za-z]{16,40}$/),
      object: 'usageEvent',
      livemode: true,
      idempotencyKey: k,
      type: 'llm.tokens',
      customerId: customer.id,
      timestamp,
      data: { tokens: '0.00002', m: { x: [1, 'a'] } },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      deletedAt: null,
    });
    const one = await t.http().get(`/v0/usageEvents/${shown.id}`).set(acme.live.auth).expect(200);
    expect(one.body).toEqual(shown);
    await t.http().get(`/v0/usageEvents/${shown.id}`).set(acme.test.auth).expect(404);
    await t.http().get(`/v0/usageEvents/${shown.id}`).set(other.live.auth).expect(404);
    await t.http().get('/v0/usageEvents/uev_bad').set(acme.live.auth).expect(404);
  });

  it('filters the list by time range and pages it by cursor, newest first', async () => {
    const c = await createCustomer(t, acme.live);
    const base = Date.now() - days(2);
    const events = Array.from({ length: 5 }, (_, i) =>
      event({ customerId: c.id, timestamp: iso(base + minutes(i)) }),
    );
    await sendUsage(t, acme.live, events).expect(202);
    const page = (q: Record<string, unknown>) =>
      t
        .http()
        .get('/v0/usageEvents')
        .query({ customerId: c.id, ...q })
        .set(acme.live.auth)
        .expect(200);
    const inRange = await page({ from: iso(base + minutes(1)), to: iso(base + minutes(3)) });
    expect(inRange.body.data.map((e: { timestamp: string }) => e.timestamp).sort()).toEqual([
      iso(base + minutes(1)),
      iso(base + minutes(2)),
    ]);
    const first = await page({ limit: 3 });
    expect(first.body.pagination).toEqual({ limit: 3, hasMore: true });
    const second = await page({ limit: 3, startingAfter: first.body.data[2].id });
    expect(second.body.pagination).toEqual({ limit: 3, hasMore: false });
    const ids = [...first.body.data, ...second.body.data].map((e: { id: string }) => e.id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(new Set(ids).size).toBe(5);
    const bad = await t
      .http()
      .get('/v0/usageEvents')
      .query({ from: '2026-01-01T00:00:00' })
      .set(acme.live.auth);
    expectErrorEnvelope(bad, 400, 'validation_error');
  });

  describe('refuses, storing nothing', () => {
    it.each<[string, () => Record<string, unknown>, string, string]>([
      ['an unknown field', () => event({ amount: 3 }), 'events[1].amount', 'unknown_field'],
      [
        'a timestamp without Z',
        () => event({ timestamp: '2026-01-31T12:00:00.000' }),
        'events[1].timestamp',
        'invalid_timestamp',
      ],
      [
        'a timestamp with an offset',
        () => event({ timestamp: '2026-01-31T12:00:00+00:00' }),
        'events[1].timestamp',
        'invalid_timestamp',
      ],
      [
        'data of 4 KB + 1',
        () => event({ data: { s: 'x'.repeat(4097 - 8) } }),
        'events[1].data',
        'too_large',
      ],
      [
        'data nested 9 deep',
        () => event({ data: { a: { a: { a: { a: { a: { a: { a: { a: {} } } } } } } } } }),
        'events[1].data.a.a.a.a.a.a.a.a',
        'too_deep',
      ],
      [
        'a negative value',
        () => event({ type: 'llm.tokens', data: { tokens: -1 } }),
        'events[1].data.tokens',
        'invalid_decimal',
      ],
      [
        'a negative string value',
        () => event({ type: 'llm.tokens', data: { tokens: '-1' } }),
        'events[1].data.tokens',
        'invalid_decimal',
      ],
      [
        'an exponent',
        () => event({ type: 'llm.tokens', data: { tokens: 1e21 } }),
        'events[1].data.tokens',
        'invalid_decimal',
      ],
      [
        'an exponent in a string',
        () => event({ type: 'llm.tokens', data: { tokens: '1e3' } }),
        'events[1].data.tokens',
        'invalid_decimal',
      ],
      [
        '13 fractional digits',
        () => event({ type: 'llm.tokens', data: { tokens: '0.0000000000001' } }),
        'events[1].data.tokens',
        'invalid_decimal',
      ],
      ['a missing value', () => event({ type: 'llm.tokens' }), 'events[1].data.tokens', 'required'],
      [
        'a key of 256 characters',
        () => event({ idempotencyKey: 'k'.repeat(256) }),
        'events[1].idempotencyKey',
        'invalid_length',
      ],
      [
        'a type with a space',
        () => event({ type: 'api call' }),
        'events[1].type',
        'invalid_format',
      ],
      [
        'both customer fields',
        () => event({ externalCustomerId: 'x' }),
        'events[1].externalCustomerId',
        'field_not_allowed',
      ],
      ['no customer', () => event({ customerId: undefined }), 'events[1].customerId', 'required'],
    ])('%s', async (_what, bad, field, code) => {
      const before = await storedCount();
      const res = await sendUsage(t, acme.live, [event(), bad(), event()]);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors).toEqual([expect.objectContaining({ field, code })]);
      expect(await storedCount()).toBe(before);
    });

    it('1,001 events', async () => {
      const events = Array.from({ length: 1001 }, () => event());
      const res = await sendUsage(t, acme.live, events);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors).toEqual([
        expect.objectContaining({ field: 'events', code: 'too_many_items' }),
      ]);
    });

    it('a body of 1 MB + 1 byte with 413, and takes 1 MB exactly', async () => {
      const events = Array.from({ length: 1000 }, () => event({ data: { pad: 'p'.repeat(900) } }));
      const json = JSON.stringify({ events });
      const sized = (bytes: number) => json + ' '.repeat(bytes - Buffer.byteLength(json));
      const before = await storedCount();
      const big = await t
        .http()
        .post('/v0/usageEvents')
        .set(acme.live.auth)
        .set('Content-Type', 'application/json')
        .send(sized(1024 * 1024 + 1));
      expectErrorEnvelope(big, 413, 'payload_too_large', 'PAYLOAD_TOO_LARGE');
      expect(await storedCount()).toBe(before);
      const exact = await t
        .http()
        .post('/v0/usageEvents')
        .set(acme.live.auth)
        .set('Content-Type', 'application/json')
        .send(sized(1024 * 1024))
        .expect(202);
      expect(exact.body).toEqual({ accepted: 1000, duplicates: 0 });
      // Every other route keeps 100 KB.
      const product = await t
        .http()
        .post('/v0/products')
        .set(acme.live.auth)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ name: 'x' }) + ' '.repeat(100 * 1024));
      expectErrorEnvelope(product, 413, 'payload_too_large');
    });

    it('names every problem of a large batch by its path', async () => {
      const events = Array.from({ length: 500 }, (_, i) =>
        i === 417 ? event({ type: 'llm.tokens', data: { tokens: 'ten' } }) : event(),
      );
      events[3] = event({ customerId: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' });
      const res = await sendUsage(t, acme.live, events);
      expectErrorEnvelope(res, 400, 'validation_error', 'CUSTOMER_NOT_FOUND');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([
        'events[3].customerId',
        'events[417].data.tokens',
      ]);
    });
  });

  describe('CUSTOMER_NOT_FOUND at its path', () => {
    it.each([
      ['another organization’s customer', () => createCustomer(t, other.live)],
      ['the other mode’s customer', () => createCustomer(t, acme.test)],
      [
        'a deleted customer',
        async () => {
          const c = await createCustomer(t, acme.live);
          await t.http().delete(`/v0/customers/${c.id}`).set(acme.live.auth).expect(200);
          return c;
        },
      ],
    ])('%s, by id and by externalId', async (_what, make) => {
      const c = await make();
      const byId = await sendUsage(t, acme.live, [event(), event({ customerId: c.id })]);
      expectErrorEnvelope(byId, 400, 'validation_error', 'CUSTOMER_NOT_FOUND');
      expect(byId.body.errors).toEqual([
        expect.objectContaining({ field: 'events[1].customerId', code: 'customer_not_found' }),
      ]);
      const byExternal = await sendUsage(t, acme.live, [
        event({ customerId: undefined, externalCustomerId: c.externalId }),
      ]);
      expectErrorEnvelope(byExternal, 400, 'validation_error', 'CUSTOMER_NOT_FOUND');
      expect(byExternal.body.errors[0].field).toBe('events[0].externalCustomerId');
    });
  });

  describe('TIMESTAMP_OUT_OF_RANGE', () => {
    it.each([
      ['91 days ago', () => iso(Date.now() - days(91))],
      ['6 minutes ahead', () => iso(Date.now() + minutes(6))],
    ])('%s', async (_what, timestamp) => {
      const res = await sendUsage(t, acme.live, [event({ timestamp: timestamp() })]);
      expectErrorEnvelope(res, 400, 'validation_error', 'TIMESTAMP_OUT_OF_RANGE');
      expect(res.body.errors[0].field).toBe('events[0].timestamp');
    });

    it('takes 89 days ago and 4 minutes ahead', async () => {
      await sendUsage(t, acme.live, [
        event({ timestamp: iso(Date.now() - days(89)) }),
        event({ timestamp: iso(Date.now() + minutes(4)) }),
      ]).expect(202);
    });

    it('reads the window on the customer’s test clock, and defaults the timestamp to it', async () => {
      const frozenTime = '2027-03-01T00:00:00.000Z';
      const clock = await t
        .http()
        .post('/v0/testClocks')
        .set(acme.test.auth)
        .send({ frozenTime })
        .expect(201);
      const c = await createCustomer(t, acme.test, { testClockId: clock.body.id });
      const send = (e: Record<string, unknown>) =>
        sendUsage(t, acme.test, [
          { idempotencyKey: nextKey(), type: 'api.call', customerId: c.id, ...e },
        ]);
      await send({ timestamp: '2027-01-01T00:00:00.000Z' }).expect(202);
      const late = await send({ timestamp: '2026-11-30T00:00:00.000Z' });
      expectErrorEnvelope(late, 400, 'validation_error', 'TIMESTAMP_OUT_OF_RANGE');
      const now = await send({ timestamp: iso(Date.now()) });
      expectErrorEnvelope(now, 400, 'validation_error', 'TIMESTAMP_OUT_OF_RANGE');
      await send({}).expect(202);
      const list = await t
        .http()
        .get('/v0/usageEvents')
        .query({ customerId: c.id, limit: 1 })
        .set(acme.test.auth)
        .expect(200);
      expect(list.body.data[0].timestamp).toBe(frozenTime);
    });
  });

  it('records no change event', async () => {
    const before = await t
      .http()
      .get('/v0/events')
      .query({ limit: 1 })
      .set(acme.live.auth)
      .expect(200);
    await sendUsage(t, acme.live, [event()]).expect(202);
    const after = await t
      .http()
      .get('/v0/events')
      .query({ limit: 1 })
      .set(acme.live.auth)
      .expect(200);
    expect(after.body.data[0]?.id).toBe(before.body.data[0]?.id);
  });

  it('stores each key once when two requests with overlapping keys race', async () => {
    const c = await createCustomer(t, acme.live);
    const keys = Array.from({ length: 300 }, () => nextKey());
    const batch = (from: number, to: number) =>
      keys.slice(from, to).map((k) => ({ idempotencyKey: k, type: 'api.call', customerId: c.id }));
    // Both hold keys 100-199; each also holds keys of its own, in another order.
    const [a, b] = await Promise.all([
      sendUsage(t, acme.live, batch(0, 200)),
      sendUsage(t, acme.live, batch(100, 300).reverse()),
    ]);
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(a.body.accepted + b.body.accepted).toBe(300);
    expect(a.body.duplicates + b.body.duplicates).toBe(100);
    expect(await storedCount(c.id)).toBe(300);
  });
});
