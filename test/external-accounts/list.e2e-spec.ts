import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';
import { createAccount, decide, uniqueDigits } from '../helpers/external-accounts-factory';

describe(`GET /v0/externalAccounts (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  /** Ids of the tenant's live accounts, newest first. */
  let ids: string[];
  const byId = new Map<string, any>();

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant('Acme');
    other = await t.createTenant('Other');
    const made: any[] = [];
    // 12 accounts: USD/US, EUR/DE, CAD/CA in turn; some verified, some errored; one deleted.
    for (let i = 0; i < 13; i++) {
      const kind = i % 3;
      const account = await createAccount(
        t,
        tenant,
        kind === 0
          ? {}
          : kind === 1
            ? {
                countryCode: 'DE',
                currency: 'EUR',
                accountNumber: uniqueDigits(10),
                routingNumber: 'COBADEFFXXX',
              }
            : { countryCode: 'CA', currency: 'CAD', routingNumber: '11000000' },
      );
      made.push(account);
    }
    // Decided as the service decides live accounts: by an operator (docs/verification.md).
    await decide(t, made[1].id, 'verified');
    await decide(t, made[4].id, 'verified');
    await decide(t, made[5].id, 'errored', 'account_closed');
    await t.http().delete(`/v0/externalAccounts/${made[12].id}`).set(tenant.auth).expect(200);
    for (const a of made.slice(0, 12)) {
      const res = await t.http().get(`/v0/externalAccounts/${a.id}`).set(tenant.auth).expect(200);
      byId.set(a.id, res.body);
    }
    ids = made
      .slice(0, 12)
      .map((a) => a.id)
      .reverse();
    await createAccount(t, other);
  });
  afterAll(() => t.close());

  const list = (query = '', who: TestTenant = tenant) =>
    t.http().get(`/v0/externalAccounts${query}`).set(who.auth);

  describe('pagination', () => {
    it('answers the newest 10 by default, with the pagination block', async () => {
      const res = await list().expect(200);
      expect(Object.keys(res.body)).toEqual(['data', 'pagination']);
      expect(res.body.pagination).toEqual({ limit: 10, offset: 0, total: 12 });
      expect(res.body.data.map((a: any) => a.id)).toEqual(ids.slice(0, 10));
      expect(res.body.data[0]).toEqual(byId.get(ids[0]));
    });

    it('pages through every account once, in order, newest first', async () => {
      const seen: string[] = [];
      for (let offset = 0; offset < 12; offset += 5) {
        const res = await list(`?limit=5&offset=${offset}`).expect(200);
        expect(res.body.pagination).toEqual({ limit: 5, offset, total: 12 });
        seen.push(...res.body.data.map((a: any) => a.id));
      }
      expect(seen).toEqual(ids);
    });

    it.each([
      ['?limit=1', 1, 0, 1],
      ['?limit=100', 100, 0, 12],
      ['?offset=11', 10, 11, 1],
      ['?offset=12', 10, 12, 0],
      ['?offset=1000', 10, 1000, 0],
      ['?limit=3&offset=10', 3, 10, 2],
    ])('%s answers %i items from %i', async (query, limit, offset, length) => {
      const res = await list(query).expect(200);
      expect(res.body.pagination).toEqual({ limit, offset, total: 12 });
      expect(res.body.data).toHaveLength(length);
      expect(res.body.data.map((a: any) => a.id)).toEqual(ids.slice(offset, offset + limit));
    });

    it.each([
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=-1', 'limit'],
      ['?limit=abc', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?limit=', 'limit'],
      ['?offset=-1', 'offset'],
      ['?offset=abc', 'offset'],
      ['?offset=99999999999', 'offset'],
      ['?limit=1&limit=2', 'limit'],
    ])('answers 400 to %s', async (query, field) => {
      const res = await list(query);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors.map((e: any) => e.field)).toContain(field);
    });

    // docs/api.md §5.5: the filters are status, currency and countryCode only.
    it.each(['own', 'other', 'malformed'])(
      'refuses organizationId (%s) as an unknown query parameter',
      async (which) => {
        const organizationId =
          which === 'own'
            ? tenant.organizationId
            : which === 'other'
              ? other.organizationId
              : 'acme';
        const res = await list(`?organizationId=${organizationId}`);
        expectErrorEnvelope(res, 400, 'validation_error', 'UNKNOWN_FIELD');
        expect(res.body.errors).toEqual([
          { field: 'organizationId', code: 'unknown_field', message: expect.any(String) },
        ]);
      },
    );

    it('answers 400 to an unknown query parameter', async () => {
      const res = await list('?merchantId=org_x');
      expectErrorEnvelope(res, 400, 'validation_error', 'UNKNOWN_FIELD');
      expect(res.body.errors).toEqual([
        { field: 'merchantId', code: 'unknown_field', message: expect.any(String) },
      ]);
    });
  });

  describe('filters', () => {
    const expectIds = (res: any, predicate: (a: any) => boolean) => {
      const expected = ids.filter((id) => predicate(byId.get(id)));
      expect(expected.length).toBeGreaterThan(0);
      expect(res.body.data.map((a: any) => a.id)).toEqual(expected.slice(0, 100));
      expect(res.body.pagination.total).toBe(expected.length);
    };

    it.each(['pending', 'verified', 'errored'])('status=%s', async (status) => {
      const res = await list(`?status=${status}&limit=100`).expect(200);
      expectIds(res, (a) => a.status === status);
    });

    it.each(['USD', 'EUR', 'CAD'])('currency=%s', async (currency) => {
      const res = await list(`?currency=${currency}&limit=100`).expect(200);
      expectIds(res, (a) => a.currency === currency);
    });

    it.each(['US', 'DE', 'CA'])('countryCode=%s', async (countryCode) => {
      const res = await list(`?countryCode=${countryCode}&limit=100`).expect(200);
      expectIds(res, (a) => a.countryCode === countryCode);
    });

    it('combines filters', async () => {
      const res = await list('?countryCode=DE&currency=EUR&status=verified&limit=100').expect(200);
      expectIds(
        res,
        (a) => a.countryCode === 'DE' && a.currency === 'EUR' && a.status === 'verified',
      );
    });

    it('pages within a filter', async () => {
      const all = ids.filter((id) => byId.get(id).status === 'pending');
      const res = await list('?status=pending&limit=2&offset=2').expect(200);
      expect(res.body.pagination).toEqual({ limit: 2, offset: 2, total: all.length });
      expect(res.body.data.map((a: any) => a.id)).toEqual(all.slice(2, 4));
    });

    it('answers an empty page when nothing matches', async () => {
      const res = await list('?currency=JPY').expect(200);
      expect(res.body).toEqual({ data: [], pagination: { limit: 10, offset: 0, total: 0 } });
    });

    it.each([
      ['?status=new', 'status'],
      ['?status=PENDING', 'status'],
      ['?status=', 'status'],
      ['?currency=usd', 'currency'],
      ['?currency=XYZ', 'currency'],
      ['?countryCode=us', 'countryCode'],
      ['?countryCode=XX', 'countryCode'],
      ['?countryCode=USA', 'countryCode'],
      ['?status=pending&status=verified', 'status'],
    ])('answers 400 to %s', async (query, field) => {
      const res = await list(query);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors.map((e: any) => e.field)).toEqual([field]);
    });
  });

  describe('tenancy', () => {
    it("lists only the caller's accounts", async () => {
      const mine = await list('?limit=100').expect(200);
      expect(mine.body.data.every((a: any) => a.organizationId === tenant.organizationId)).toBe(
        true,
      );
      const theirs = await list('?limit=100', other).expect(200);
      expect(theirs.body.pagination.total).toBe(1);
      expect(theirs.body.data[0].organizationId).toBe(other.organizationId);
    });

    it('answers an empty list to an organization without accounts', async () => {
      const empty = await t.createTenant('Empty');
      const res = await list('', empty).expect(200);
      expect(res.body).toEqual({ data: [], pagination: { limit: 10, offset: 0, total: 0 } });
    });
  });

  it('never shows a full account number', async () => {
    const res = await list('?limit=100').expect(200);
    for (const a of res.body.data) {
      expect(a.accountNumber).toMatch(/^\*{4}[A-Z0-9]{4}$/);
      expect(a.accountNumber).toBe(`****${a.last4}`);
    }
  });
});
