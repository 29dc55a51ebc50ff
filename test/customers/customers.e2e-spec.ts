import { createTwoModeTenant } from '../helpers/modes';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import { TEST_DIALECT } from '../helpers/test-database';

const CUSTOMER_KEYS = [
  'address',
  'createdAt',
  'email',
  'externalId',
  'id',
  'livemode',
  'merchantId',
  'metadata',
  'name',
  'object',
  'taxId',
  'testClockId',
  'updatedAt',
].sort();

describe(`customers (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let live: TestTenant;
  let test: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    const org = await createTwoModeTenant(t, 'Acme');
    live = org.live;
    test = org.test;
    other = await t.createTenant('Other');
  });
  afterAll(() => t.close());

  const post = (tenant: TestTenant, path: string, body: object) =>
    t.http().post(path).set(tenant.auth).send(body);
  const create = (tenant: TestTenant, body: object) => post(tenant, '/v0/customers', body);
  const get = (tenant: TestTenant, path: string) => t.http().get(path).set(tenant.auth);
  const patch = (tenant: TestTenant, id: string, body: object) =>
    t.http().patch(`/v0/customers/${id}`).set(tenant.auth).send(body);
  const del = (tenant: TestTenant, path: string) => t.http().delete(path).set(tenant.auth);
  async function customer(tenant: TestTenant, body: object = {}) {
    const res = await create(tenant, { name: 'Jane', email: 'jane@example.com', ...body });
    expect(res.status).toBe(201);
    return res.body;
  }
  async function clock(frozenTime = '2027-01-31T10:00:00.000Z') {
    const res = await post(test, '/v0/testClocks', { frozenTime });
    expect(res.status).toBe(201);
    return res.body;
  }

  describe('POST /v0/customers', () => {
    it('creates a customer from a name and an email, every other key null or empty', async () => {
      const res = await create(live, { name: 'Jane Cooper', email: 'jane@example.com' }).expect(
        201,
      );
      expect(Object.keys(res.body).sort()).toEqual(CUSTOMER_KEYS);
      expect(res.body).toMatchObject({
        object: 'customer',
        livemode: true,
        merchantId: live.organizationId,
        externalId: null,
        address: null,
        taxId: null,
        testClockId: null,
        metadata: {},
      });
      expect(res.body.id).toMatch(/^cus_[0-9A-Za-z]{16,40}$/);
      expect(res.headers.location).toBe(`/v0/customers/${res.body.id}`);
      expect((await get(live, `/v0/customers/${res.body.id}`).expect(200)).body).toEqual(res.body);
    });

    it('keeps an address with every key, null where left out', async () => {
      const body = await customer(live, {
        address: { line1: 'Hauptstraße 1', country: 'DE' },
        taxId: 'DE123456789',
        externalId: 'crm-addr',
      });
      expect(body.address).toEqual({
        line1: 'Hauptstraße 1',
        line2: null,
        city: null,
        state: null,
        postalCode: null,
        country: 'DE',
      });
    });

    it.each([
      ['a missing email', { name: 'x' }, 'email', 'required'],
      ['an invalid email', { name: 'x', email: 'not-an-email' }, 'email', 'invalid_email'],
      ['an email with spaces', { name: 'x', email: 'a b@example.com' }, 'email', 'invalid_email'],
      [
        'an email of 255 characters',
        {
          name: 'x',
          email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(59)}.com`,
        },
        'email',
        undefined,
      ],
      ['a numeric email', { name: 'x', email: 7 }, 'email', undefined],
      ['a missing name', { email: 'a@example.com' }, 'name', 'required'],
      [
        'an address without a country',
        { name: 'x', email: 'a@b.co', address: { line1: 'x' } },
        'address.country',
        undefined,
      ],
      [
        'an unknown country',
        { name: 'x', email: 'a@b.co', address: { country: 'XX' } },
        'address.country',
        'invalid_country',
      ],
      [
        'a lower-case country',
        { name: 'x', email: 'a@b.co', address: { country: 'de' } },
        'address.country',
        'invalid_country',
      ],
      [
        'an unknown address key',
        { name: 'x', email: 'a@b.co', address: { country: 'DE', zip: '1' } },
        'address.zip',
        'unknown_field',
      ],
      [
        'an empty address line',
        { name: 'x', email: 'a@b.co', address: { country: 'DE', city: '' } },
        'address.city',
        'too_short',
      ],
      [
        'an externalId of 201 characters',
        { name: 'x', email: 'a@b.co', externalId: 'e'.repeat(201) },
        'externalId',
        'too_long',
      ],
      [
        'a taxId of 51 characters',
        { name: 'x', email: 'a@b.co', taxId: 't'.repeat(51) },
        'taxId',
        'too_long',
      ],
      ['an unknown field', { name: 'x', email: 'a@b.co', phone: '1' }, 'phone', 'unknown_field'],
      [
        'nested metadata',
        { name: 'x', email: 'a@b.co', metadata: { a: { b: 1 } } },
        'metadata',
        'invalid_metadata',
      ],
      [
        'a malformed testClockId',
        { name: 'x', email: 'a@b.co', testClockId: 'clock' },
        'testClockId',
        'invalid_id',
      ],
    ])('rejects %s with a 400 naming the field', async (_what, body, field, code) => {
      const res = await create(live, body);
      expectErrorEnvelope(res, 400, 'validation_error');
      const entry = res.body.errors.find((e: any) => e.field === field);
      expect(entry).toBeDefined();
      if (code) expect(entry.code).toBe(code);
    });

    it('answers 403 for another organization as merchantId', async () => {
      const res = await create(live, {
        name: 'x',
        email: 'a@b.co',
        merchantId: other.organizationId,
      });
      expectErrorEnvelope(res, 403, 'forbidden');
    });

    it('refuses a second customer with the same externalId in one organization and mode (409)', async () => {
      await customer(live, { externalId: 'crm-4711' });
      expectErrorEnvelope(
        await create(live, { name: 'x', email: 'a@b.co', externalId: 'crm-4711' }),
        409,
        'conflict',
        'DUPLICATE_CUSTOMER',
      );
      // The other mode and another organization have their own ids.
      await customer(test, { externalId: 'crm-4711' });
      await customer(other, { externalId: 'crm-4711' });
    });

    it('lets one of two racing creates with one externalId win, the other 409', async () => {
      const results = await Promise.all(
        [1, 2, 3].map(() => create(live, { name: 'x', email: 'a@b.co', externalId: 'crm-race' })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    });

    it('gives the externalId back once its customer is deleted', async () => {
      const first = await customer(live, { externalId: 'crm-reuse' });
      await del(live, `/v0/customers/${first.id}`).expect(200);
      await customer(live, { externalId: 'crm-reuse' });
    });
  });

  describe('GET /v0/customers', () => {
    it('filters by email and externalId, newest first, within the tenant', async () => {
      const a1 = await customer(live, { email: 'filter@example.com' });
      const a2 = await customer(live, { email: 'filter@example.com', externalId: 'crm-f' });
      await customer(test, { email: 'filter@example.com' });
      const byEmail = await get(live, '/v0/customers?email=filter@example.com').expect(200);
      expect(byEmail.body.data.map((c: any) => c.id)).toEqual([a2.id, a1.id]);
      expect(byEmail.body.pagination).toEqual({ limit: 10, offset: 0, total: 2 });
      const byExternal = await get(live, '/v0/customers?externalId=crm-f').expect(200);
      expect(byExternal.body.data.map((c: any) => c.id)).toEqual([a2.id]);
      const fromOther = await get(other, '/v0/customers?email=filter@example.com').expect(200);
      expect(fromOther.body.pagination.total).toBe(0);
    });

    it('rejects an unknown filter', async () => {
      expectErrorEnvelope(await get(live, '/v0/customers?status=x'), 400, 'validation_error');
    });
  });

  describe('PATCH /v0/customers/{id}', () => {
    it('changes the fields sent, merges metadata and records customer.updated', async () => {
      const c = await customer(live, { metadata: { a: 1, b: 'x' }, externalId: 'crm-p' });
      const res = await patch(live, c.id, {
        name: 'Jane Doe',
        email: 'doe@example.com',
        externalId: null,
        address: { country: 'FR', city: 'Paris' },
        metadata: { a: null, c: true },
      }).expect(200);
      expect(res.body).toMatchObject({
        name: 'Jane Doe',
        email: 'doe@example.com',
        externalId: null,
        address: { country: 'FR', city: 'Paris', line1: null },
        metadata: { b: 'x', c: true },
      });
      const events = await get(live, '/v0/events?type=customer.updated').expect(200);
      const event = events.body.data.find((e: any) => e.data.object.id === c.id);
      expect(event.data.previousAttributes).toMatchObject({ name: 'Jane', externalId: 'crm-p' });
    });

    it('refuses testClockId and merchantId with a 400 naming them', async () => {
      const c = await customer(test);
      for (const body of [{ testClockId: null }, { merchantId: test.organizationId }]) {
        const res = await patch(test, c.id, body);
        expectErrorEnvelope(res, 400, 'validation_error');
        expect(res.body.errors[0].field).toBe(Object.keys(body)[0]);
      }
    });

    it('refuses an externalId another customer holds (409)', async () => {
      await customer(live, { externalId: 'crm-taken' });
      const c = await customer(live);
      expectErrorEnvelope(
        await patch(live, c.id, { externalId: 'crm-taken' }),
        409,
        'conflict',
        'DUPLICATE_CUSTOMER',
      );
    });

    it('answers 404 for another organization, the other mode and a malformed id', async () => {
      const c = await customer(live);
      expectErrorEnvelope(await patch(other, c.id, { name: 'x' }), 404, 'not_found');
      expectErrorEnvelope(await patch(test, c.id, { name: 'x' }), 404, 'not_found');
      expectErrorEnvelope(await get(test, `/v0/customers/${c.id}`), 404, 'not_found');
      expectErrorEnvelope(await get(live, '/v0/customers/cus_x'), 404, 'not_found');
    });
  });

  describe('DELETE /v0/customers/{id}', () => {
    it('answers {id, object, deleted}, then 404; records customer.deleted', async () => {
      const c = await customer(live);
      const res = await del(live, `/v0/customers/${c.id}`).expect(200);
      expect(res.body).toEqual({ id: c.id, object: 'customer', deleted: true });
      expectErrorEnvelope(await get(live, `/v0/customers/${c.id}`), 404, 'not_found');
      expectErrorEnvelope(await del(live, `/v0/customers/${c.id}`), 404, 'not_found');
      const events = await get(live, '/v0/events?type=customer.deleted').expect(200);
      expect(events.body.data.some((e: any) => e.data.object.id === c.id)).toBe(true);
    });
  });

  describe('test clocks', () => {
    it('creates, reads and lists a clock in test mode', async () => {
      const c = await clock();
      expect(c).toMatchObject({
        object: 'testClock',
        livemode: false,
        name: null,
        frozenTime: '2027-01-31T10:00:00.000Z',
        status: 'ready',
      });
      expect(c.id).toMatch(/^clock_[0-9A-Za-z]{16,40}$/);
      expect((await get(test, `/v0/testClocks/${c.id}`).expect(200)).body).toEqual(c);
      const list = await get(test, '/v0/testClocks').expect(200);
      expect(list.body.data.map((x: any) => x.id)).toContain(c.id);
    });

    it('answers 404 to every route with a live key', async () => {
      const c = await clock();
      expectErrorEnvelope(
        await post(live, '/v0/testClocks', { frozenTime: '2027-01-01T00:00:00.000Z' }),
        404,
        'not_found',
      );
      expectErrorEnvelope(await get(live, '/v0/testClocks'), 404, 'not_found');
      expectErrorEnvelope(await get(live, `/v0/testClocks/${c.id}`), 404, 'not_found');
      expectErrorEnvelope(await del(live, `/v0/testClocks/${c.id}`), 404, 'not_found');
      expectErrorEnvelope(
        await post(live, `/v0/testClocks/${c.id}/advance`, {
          frozenTime: '2027-03-01T00:00:00.000Z',
        }),
        404,
        'not_found',
      );
    });

    it.each([
      ['no frozenTime', {}],
      ['a date without time', { frozenTime: '2027-01-01' }],
      ['an offset instead of Z', { frozenTime: '2027-01-01T00:00:00+01:00' }],
      ['30 February', { frozenTime: '2027-02-30T00:00:00.000Z' }],
      ['a number', { frozenTime: 1798761600000 }],
      ['year 9999', { frozenTime: '9999-01-01T00:00:00.000Z' }],
    ])('rejects %s with a 400', async (_what, body) => {
      const res = await post(test, '/v0/testClocks', body);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors[0].field).toBe('frozenTime');
    });

    it('puts a test customer on a clock; a live key sending testClockId gets a 400', async () => {
      const c = await clock();
      const cus = await customer(test, { testClockId: c.id });
      expect(cus.testClockId).toBe(c.id);
      const res = await create(live, { name: 'x', email: 'a@b.co', testClockId: c.id });
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors[0].field).toBe('testClockId');
    });

    it("refuses another organization's clock, an unknown one, and a deleted one", async () => {
      const otherOrg = await createTwoModeTenant(t, 'Clock owner');
      const theirs = (
        await post(otherOrg.test, '/v0/testClocks', { frozenTime: '2027-01-01T00:00:00.000Z' })
      ).body;
      const res = await create(test, { name: 'x', email: 'a@b.co', testClockId: theirs.id });
      expectErrorEnvelope(res, 400, 'validation_error', 'TEST_CLOCK_NOT_FOUND');
      const gone = await clock();
      await del(test, `/v0/testClocks/${gone.id}`).expect(200);
      expectErrorEnvelope(
        await create(test, { name: 'x', email: 'a@b.co', testClockId: gone.id }),
        400,
        'validation_error',
        'TEST_CLOCK_NOT_FOUND',
      );
    });

    it('holds at most 100 customers (409 TEST_CLOCK_FULL)', async () => {
      const c = await clock();
      for (let i = 0; i < 100; i++) await customer(test, { testClockId: c.id });
      expectErrorEnvelope(
        await create(test, { name: 'x', email: 'a@b.co', testClockId: c.id }),
        409,
        'conflict',
        'TEST_CLOCK_FULL',
      );
    });

    it('is not deleted while it has customers (409 TEST_CLOCK_IN_USE), then is', async () => {
      const c = await clock();
      const cus = await customer(test, { testClockId: c.id });
      expectErrorEnvelope(
        await del(test, `/v0/testClocks/${c.id}`),
        409,
        'conflict',
        'TEST_CLOCK_IN_USE',
      );
      await del(test, `/v0/customers/${cus.id}`).expect(200);
      const res = await del(test, `/v0/testClocks/${c.id}`).expect(200);
      expect(res.body).toEqual({ id: c.id, object: 'testClock', deleted: true });
      expectErrorEnvelope(await get(test, `/v0/testClocks/${c.id}`), 404, 'not_found');
    });
  });
});
