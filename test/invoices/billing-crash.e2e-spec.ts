import { childServices } from '../helpers/child-services';
import { TEST_DIALECT } from '../helpers/test-database';

const API_KEY = `sk_test_${'I'.repeat(32)}`;

/**
 * The billing run is durable (docs/api.md §5.12): the service, in a child process, is killed with
 * SIGKILL while subscriptions are created (their ended periods invoiced in the create) and drafts
 * are issued by the poller. After the restarts, every subscription that exists has each ended
 * period invoiced once, every invoice is whole (its lines add up to it) and issued, and the
 * numbers run from INV-000001 without a gap or a repeat.
 */
describe(`the billing run across SIGKILLs (${TEST_DIALECT})`, () => {
  const { start, api } = childServices(API_KEY);

  it('leaves no half invoice and no period uninvoiced', async () => {
    let server = await start();
    const product = await api(server, 'POST', '/v0/products', { name: 'API' });
    const plan = await api(server, 'POST', '/v0/plans', {
      name: 'Weekly',
      productId: product.body.id,
      billingInterval: 'weekly',
      fixedFee: '3.5',
      tax: { behavior: 'exclusive', rate: '10' },
    });
    expect(plan.status).toBe(201);
    const startedAt = new Date(Date.now() - 22 * 86_400_000).toISOString();
    for (let round = 0; round < 3; round++) {
      const create = async (i: number) => {
        const customer = await api(server, 'POST', '/v0/customers', {
          name: `C${round}-${i}`,
          email: `c${round}-${i}@example.com`,
        });
        await api(server, 'POST', '/v0/subscriptions', {
          customerId: customer.body.id,
          planId: plan.body.id,
          startedAt,
        });
      };
      // Four complete (their drafts then issue in the background), four more in flight.
      for (let i = 0; i < 4; i++) await create(i);
      const creates = [4, 5, 6, 7].map((i) => create(i).catch(() => undefined));
      await new Promise((resolve) => setTimeout(resolve, 20 + round * 40));
      await server.stop('SIGKILL');
      await Promise.all(creates);
      server = await start();
    }

    const subscriptions = (await api(server, 'GET', '/v0/subscriptions?limit=100')).body.data;
    expect(subscriptions.length).toBeGreaterThan(0);
    let invoices: any[] = [];
    const deadline = Date.now() + 60_000;
    for (;;) {
      invoices = (await api(server, 'GET', '/v0/invoices?limit=100')).body.data;
      const done =
        invoices.length === subscriptions.length * 3 &&
        invoices.every((i: any) => i.status === 'issued');
      if (done || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Three weeks ended since the start: three invoices per subscription, each once.
    expect(invoices).toHaveLength(subscriptions.length * 3);
    expect(new Set(invoices.map((i) => `${i.subscriptionId} ${i.periodStart}`)).size).toBe(
      invoices.length,
    );
    for (const invoice of invoices) {
      expect(invoice).toMatchObject({ status: 'issued', subtotal: '3.50', total: '3.85' });
      expect(invoice.lines.map((l: any) => l.amount)).toEqual(['3.50']);
    }
    expect(invoices.map((i) => i.number).sort()).toEqual(
      invoices.map((_, n) => `INV-${String(n + 1).padStart(6, '0')}`),
    );
  }, 300_000);
});
