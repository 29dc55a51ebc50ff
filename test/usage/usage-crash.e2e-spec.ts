import { childServices } from '../helpers/child-services';
import { TEST_DIALECT } from '../helpers/test-database';

const API_KEY = `sk_test_${'U'.repeat(32)}`;

/**
 * A 202 means every event is stored durably (docs/api.md §5.11): the service in a child process
 * is killed with SIGKILL the moment each 202 arrives, and after the restart every accepted event
 * is there, and a retry of the batch finds every key a duplicate.
 */
describe(`usage events across a SIGKILL (${TEST_DIALECT})`, () => {
  const { start, api } = childServices(API_KEY);

  it('keeps every event of a 202 when the process is killed right after it', async () => {
    let server = await start();
    const customer = await api(server, 'POST', '/v0/customers', {
      name: 'Crash',
      email: 'crash@example.com',
    });
    expect(customer.status).toBe(201);
    const batches = Array.from({ length: 3 }, (_, b) =>
      Array.from({ length: 1000 }, (_, i) => ({
        idempotencyKey: `crash-${b}-${i}`,
        type: 'api.call',
        customerId: customer.body.id,
        data: { i },
      })),
    );
    for (const events of batches) {
      const res = await api(server, 'POST', '/v0/usageEvents', { events });
      expect(res).toEqual({ status: 202, body: { accepted: 1000, duplicates: 0 } });
      await server.stop('SIGKILL');
      server = await start();
    }
    let count = 0;
    let after = '';
    for (;;) {
      const page = await api(
        server,
        'GET',
        `/v0/usageEvents?limit=100&customerId=${customer.body.id}${after}`,
      );
      expect(page.status).toBe(200);
      count += page.body.data.length;
      if (!page.body.pagination.hasMore) break;
      after = `&startingAfter=${page.body.data[page.body.data.length - 1].id}`;
    }
    expect(count).toBe(3000);
    const retry = await api(server, 'POST', '/v0/usageEvents', { events: batches[1] });
    expect(retry).toEqual({ status: 202, body: { accepted: 0, duplicates: 1000 } });
  }, 240_000);
});
