import Sqlite from 'better-sqlite3';
import { Client } from 'pg';
import { BillableMetric } from '../../src/catalog/entities/billable-metric.entity';
import { Product } from '../../src/catalog/entities/product.entity';
import { PricesRepository } from '../../src/plans/prices.repository';
import { createCatalog } from '../helpers/catalog-factory';
import { createPlan, createPrice } from '../helpers/plans-factory';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';

/**
 * A writer outside the service (another instance, the command line), on a connection of its
 * own: it holds its transaction open until the test commits it. SQL with `?` placeholders.
 */
interface OutsideWriter {
  begin(): Promise<void>;
  run(sql: string, params: unknown[]): Promise<void>;
  commit(): Promise<void>;
  close(): Promise<void>;
}

async function outsideWriter(t: TestApp): Promise<OutsideWriter> {
  if (t.database.dialect === 'postgres') {
    const client = new Client({ connectionString: t.database.url });
    await client.connect();
    return {
      begin: async () => void (await client.query('BEGIN')),
      run: async (sql, params) => {
        let n = 0;
        await client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        );
      },
      commit: async () => void (await client.query('COMMIT')),
      close: () => client.end(),
    };
  }
  const db = new Sqlite(t.database.url.slice('sqlite:'.length), { timeout: 5000 });
  return {
    begin: () => Promise.resolve(void db.exec('BEGIN IMMEDIATE')),
    run: (sql, params) => Promise.resolve(void db.prepare(sql).run(...params)),
    commit: () => Promise.resolve(void db.exec('COMMIT')),
    close: () => Promise.resolve(void db.close()),
  };
}

/**
 * Plans are the one resource whose answer (and events) show rows of another table: its prices.
 * A plan write shows each price as it is once the write has it, even when a price PATCH commits
 * while the write runs (docs/api.md §5.6: `data.object` is the resource as GET shows it after
 * the change); a read shows one state of a plan and its prices, never half of a write.
 */
describe(`plans and concurrent writes of their prices (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let product: Product;
  let metrics: BillableMetric[];
  let outside: OutsideWriter;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant('Acme');
    ({ product, metrics } = await createCatalog(t, tenant.organizationId, 2));
    outside = await outsideWriter(t);
  });
  afterAll(async () => {
    await outside.close();
    await t.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const planOf = (productId: string, prices: string[]) => ({
    name: 'Pro',
    productId,
    billingInterval: 'monthly',
    prices,
  });
  const renamePrice = (id: string, name: string) =>
    outside.run('UPDATE "prices" SET "invoice_display_name" = ? WHERE "id" = ?', [name, id]);
  const getPrice = async (id: string) =>
    (await t.http().get(`/v0/prices/${id}`).set(tenant.auth).expect(200)).body;
  /** The newest event of `type` about `id`. */
  const latestEvent = async (type: string, id: string) => {
    const res = await t
      .http()
      .get('/v0/events')
      .query({ type, limit: 100 })
      .set(tenant.auth)
      .expect(200);
    return (res.body.data as any[]).find((e) => e.data.object.id === id);
  };

  /**
   * Sends `request` while the outside writer holds its (uncommitted) rename of `priceId`, waits
   * until the request is inside its transaction and waiting for that row (PostgreSQL: a lock not
   * granted; SQLite: the write lock, which the service retries), then commits the rename.
   */
  async function whileRenaming<T>(
    priceId: string,
    request: () => PromiseLike<T>,
  ): Promise<Awaited<T>> {
    await outside.begin();
    await renamePrice(priceId, 'Renamed outside');
    const answer = Promise.resolve(request());
    if (TEST_DIALECT === 'postgres') {
      for (let waited = 0; ; waited += 20) {
        const [{ waiting }] = await t.dataSource.query<{ waiting: string }[]>(
          'SELECT count(*) AS waiting FROM pg_locks WHERE NOT granted',
        );
        if (Number(waiting) > 0) break;
        if (waited > 5000) throw new Error('the request never waited for the price row');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } else {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await outside.commit();
    return answer;
  }

  it('a plan create shows the price as committed before it took it, in its answer and events', async () => {
    const price = await createPrice(t, tenant, metrics[0].id, { invoiceDisplayName: 'Before' });
    const res = await whileRenaming(price.id, () =>
      t
        .http()
        .post('/v0/plans')
        .set(tenant.auth)
        .send(planOf(product.id, [price.id])),
    );
    expect(res.status).toBe(201);
    const now = await getPrice(price.id);
    expect(now.invoiceDisplayName).toBe('Renamed outside');
    expect(res.body.prices).toEqual([now]);
    const event = await latestEvent('price.updated', price.id);
    expect(event.data.object).toEqual(now);
    expect(event.data.previousAttributes).toEqual({ planId: null });
  });

  it('a plan PATCH that takes a price shows it as committed before it took it', async () => {
    const plan = await createPlan(t, tenant, product.id);
    const price = await createPrice(t, tenant, metrics[1].id, { invoiceDisplayName: 'Before' });
    const res = await whileRenaming(price.id, () =>
      t
        .http()
        .patch(`/v0/plans/${plan.id}`)
        .set(tenant.auth)
        .send({ prices: [price.id] }),
    );
    expect(res.status).toBe(200);
    const now = await getPrice(price.id);
    expect(now.invoiceDisplayName).toBe('Renamed outside');
    expect(res.body.prices).toEqual([now]);
    expect((await latestEvent('price.updated', price.id)).data.object).toEqual(now);
    expect((await latestEvent('plan.updated', plan.id)).data.object).toEqual(res.body);
  });

  it('a plan DELETE shows its prices as committed before it deleted them', async () => {
    const price = await createPrice(t, tenant, metrics[0].id, { invoiceDisplayName: 'Before' });
    const plan = await createPlan(t, tenant, product.id, { prices: [price.id] });
    const res = await whileRenaming(price.id, () =>
      t.http().delete(`/v0/plans/${plan.id}`).set(tenant.auth),
    );
    expect(res.status).toBe(200);
    const now = await getPrice(price.id);
    expect(now.invoiceDisplayName).toBe('Renamed outside');
    expect(now.deletedAt).not.toBeNull();
    expect(res.body.prices).toEqual([now]);
    expect((await latestEvent('price.deleted', price.id)).data.object).toEqual(now);
    expect((await latestEvent('plan.deleted', plan.id)).data.object).toEqual(res.body);
  });

  /** A write of a plan and its price, committed by the outside writer in one transaction. */
  const renamePlanAndPrice = async (planId: string, priceId: string, name: string) => {
    await outside.begin();
    await outside.run('UPDATE "plans" SET "name" = ? WHERE "id" = ?', [name, planId]);
    await renamePrice(priceId, name);
    await outside.commit();
  };

  it('GET of a plan never shows half of a write that commits between its statements', async () => {
    const price = await createPrice(t, tenant, metrics[0].id, { invoiceDisplayName: 'Old' });
    const plan = await createPlan(t, tenant, product.id, { name: 'Old', prices: [price.id] });
    // The write commits after the plan is read and before its prices are.
    const prices = t.app.get(PricesRepository);
    const ofPlan = prices.ofPlan.bind(prices);
    jest.spyOn(prices, 'ofPlan').mockImplementationOnce(async (...args) => {
      await renamePlanAndPrice(plan.id, price.id, 'New');
      return ofPlan(...args);
    });
    const res = await t.http().get(`/v0/plans/${plan.id}`).set(tenant.auth).expect(200);
    expect([res.body.name, res.body.prices[0].invoiceDisplayName]).toEqual(['Old', 'Old']);
    const after = await t.http().get(`/v0/plans/${plan.id}`).set(tenant.auth).expect(200);
    expect([after.body.name, after.body.prices[0].invoiceDisplayName]).toEqual(['New', 'New']);
  });

  it('a page of plans, its total and the plans’ prices show one state', async () => {
    const price = await createPrice(t, tenant, metrics[1].id, { invoiceDisplayName: 'Old' });
    const plan = await createPlan(t, tenant, product.id, { name: 'Old', prices: [price.id] });
    const before = await t.http().get('/v0/plans').query({ limit: 100 }).set(tenant.auth);
    const prices = t.app.get(PricesRepository);
    const ofPlans = prices.ofPlans.bind(prices);
    const spy = jest.spyOn(prices, 'ofPlans').mockImplementationOnce(async (...args) => {
      await renamePlanAndPrice(plan.id, price.id, 'New');
      // And a plan more, counted as the service counts a create.
      await outside.begin();
      await outside.run(
        'INSERT INTO "plan_counts" ("organization_id", "livemode", "product_id", "deleted", "slot", "plans") VALUES (?, ?, ?, 0, 99, 1)',
        [tenant.organizationId, TEST_DIALECT === 'postgres' ? true : 1, product.id],
      );
      await outside.commit();
      return ofPlans(...args);
    });
    const res = await t.http().get('/v0/plans').query({ limit: 100 }).set(tenant.auth).expect(200);
    const shown = (res.body.data as any[]).find((p) => p.id === plan.id);
    expect([shown.name, shown.prices[0].invoiceDisplayName]).toEqual(['Old', 'Old']);
    expect(res.body.pagination.total).toBe(before.body.pagination.total);
    expect(res.body.data).toHaveLength(res.body.pagination.total);
    // The outside write did happen between the statements: the next page shows all of it.
    expect(spy).toHaveBeenCalledTimes(1);
    const after = await t.http().get('/v0/plans').query({ limit: 100 }).set(tenant.auth);
    expect(after.body.pagination.total).toBe(before.body.pagination.total + 1);
  });
});
