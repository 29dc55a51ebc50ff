import { TEST_DIALECT } from '../helpers/test-database';
import { TestTenant } from '../helpers/test-app';
import { HOSTILE_STRINGS, TRICKY_KEYS } from '../helpers/reliability/arbitraries';
import { replyProblems } from '../helpers/reliability/checks';
import {
  ListeningApp,
  Seeded,
  accountBody,
  priceBody,
  seedOrganization,
  startListeningApp,
} from '../helpers/reliability/fixtures';
import { Reply, streamBody } from '../helpers/reliability/http';
import { snapshot } from '../helpers/reliability/invariants';
import { reportFigures } from '../helpers/reliability/settings';

/**
 * Hostile strings are stored and returned literally by every string field of every resource, on
 * SQLite and PostgreSQL alike; what cannot be stored literally is refused with a 400 naming the
 * field; bodies of 10 MB are refused with 413 before they are read.
 */
describe(`hostile input (${TEST_DIALECT})`, () => {
  let l: ListeningApp;
  let tenant: TestTenant;
  let world: Seeded;
  const figures = { requests: 0, stringsRoundTripped: 0 };

  beforeAll(async () => {
    l = await startListeningApp();
    tenant = await l.t.createTenant();
    world = await seedOrganization(l.client, tenant, {
      products: 1,
      metricsPerProduct: 1,
      freePricesPerMetric: 0,
      plans: 1,
      accounts: 1,
    });
  });
  afterAll(async () => {
    reportFigures('hostile-input', { ...figures, requests: l.client.sent });
    await l?.t.close();
  });

  const auth = () => tenant.auth;

  function expectClean(reply: Reply): void {
    expect({ status: reply.status, problems: replyProblems(reply) }).toEqual({
      status: reply.status,
      problems: [],
    });
  }

  /** POSTs `body`, expects 201, and that the POST and a later GET both show `expected` literally. */
  async function roundTrip(
    collection: string,
    body: Record<string, unknown>,
    expected: Record<string, unknown>,
  ) {
    const created = await l.client.post(collection, body, auth());
    expectClean(created);
    expect({ status: created.status, body: created.body }).toMatchObject({
      status: 201,
      body: expected,
    });
    const read = await l.client.get(`${collection}/${created.body.id}`, auth());
    expect(read.text).toBe(created.text);
    figures.stringsRoundTripped += Object.keys(expected).length;
    return created.body;
  }

  /** The string cut to a metadata key (1-40 characters), never through a surrogate pair. */
  const key = (s: string) => (s.length <= 40 ? s : Array.from(s).slice(0, 20).join(''));

  describe.each(HOSTILE_STRINGS.map((s) => [JSON.stringify(s).slice(0, 50), s]))(
    'the string %s',
    (_label, text) => {
      it('is stored and returned literally by products, billable metrics and prices', async () => {
        const product = await roundTrip(
          '/v0/products',
          { name: text, description: text, metadata: { [key(text)]: text, plain: text } },
          { name: text, description: text, metadata: { [key(text)]: text, plain: text } },
        );
        const metric = await roundTrip(
          '/v0/billableMetrics',
          {
            productId: product.id,
            name: text,
            unit: text,
            aggregation: 'COUNT',
            eventType: text,
            description: text,
          },
          { name: text, unit: text, eventType: text, description: text },
        );
        await roundTrip(
          '/v0/prices',
          { ...priceBody(metric.id), invoiceDisplayName: text },
          { invoiceDisplayName: text },
        );
      });

      it('is stored and returned literally by plans and external accounts', async () => {
        const code = text.length <= 50 ? text : Array.from(text).slice(0, 25).join('');
        await roundTrip(
          '/v0/plans',
          {
            name: text,
            invoiceDisplayName: text,
            description: text,
            productId: world.products[0],
            billingInterval: 'monthly',
            tax: { code },
          },
          { name: text, invoiceDisplayName: text, description: text, tax: { code } },
        );
        await roundTrip(
          '/v0/externalAccounts',
          accountBody({ bankName: text, accountHolderName: text, metadata: { [key(text)]: text } }),
          { bankName: text, accountHolderName: text, metadata: { [key(text)]: text } },
        );
      });

      it('is kept by PATCH, and found as it was sent', async () => {
        const patched = await l.client.patch(`/v0/plans/${world.plans[0]}`, { name: text }, auth());
        expectClean(patched);
        expect(patched.body.name).toBe(text);
        const account = await l.client.patch(
          `/v0/externalAccounts/${world.accounts[0]}`,
          { accountHolderName: text, metadata: { [key(text)]: text } },
          auth(),
        );
        expectClean(account);
        expect(account.body).toMatchObject({
          accountHolderName: text,
          metadata: { [key(text)]: text },
        });
        // As a filter value it is refused in the envelope, never a 500.
        const listed = await l.client.get(
          `/v0/externalAccounts?currency=${encodeURIComponent(text)}`,
          auth(),
        );
        expectClean(listed);
        expect(listed.status).toBe(400);
      });
    },
  );

  describe('what cannot be stored literally is refused with a 400 naming the field, and nothing changes', () => {
    async function expectRefused(
      method: 'POST' | 'PATCH',
      path: string,
      body: string,
      field: string,
      code: string,
    ) {
      const before = await snapshot(l.t.dataSource);
      const reply = await l.client.request(method, path, {
        body,
        headers: { ...auth(), 'content-type': 'application/json' },
      });
      expectClean(reply);
      expect({ status: reply.status, errors: reply.body.errors }).toEqual({
        status: 400,
        errors: [expect.objectContaining({ field, code })],
      });
      expect(await snapshot(l.t.dataSource)).toBe(before);
    }

    it.each([
      ['a name', '{"name":"a\\ud800b"}', 'name'],
      ['a name ending in a high surrogate', '{"name":"abc\\ud83d"}', 'name'],
      ['a reversed pair', '{"name":"\\udfff\\ud800"}', 'name'],
      ['a metadata value', '{"name":"x","metadata":{"k":"\\udc00"}}', 'metadata.k'],
      ['a metadata key', '{"name":"x","metadata":{"k\\ud800":"v"}}', 'metadata'],
    ])(
      'a lone surrogate in %s (UTF-8 cannot hold it: it would come back as U+FFFD)',
      async (_what, body, field) => {
        await expectRefused('POST', '/v0/products', body, field, 'invalid_character');
      },
    );

    it('a lone surrogate in a PATCH of an external account', async () => {
      await expectRefused(
        'PATCH',
        `/v0/externalAccounts/${world.accounts[0]}`,
        '{"accountHolderName":"\\ud800"}',
        'accountHolderName',
        'invalid_character',
      );
    });

    it.each(
      TRICKY_KEYS.filter((k) =>
        [
          'constructor',
          'toString',
          'hasOwnProperty',
          'valueOf',
          '__defineGetter__',
          'prototype',
        ].includes(k),
      ),
    )(
      'the metadata key %s (it named a member of every JavaScript object and vanished, or failed)',
      async (reserved) => {
        await expectRefused(
          'POST',
          '/v0/products',
          JSON.stringify({ name: 'x', metadata: { [reserved]: 'v', kept: 'v' } }),
          `metadata.${reserved}`,
          'reserved_key',
        );
        await expectRefused(
          'PATCH',
          `/v0/externalAccounts/${world.accounts[0]}`,
          JSON.stringify({ metadata: { [reserved]: 1 } }),
          `metadata.${reserved}`,
          'reserved_key',
        );
      },
    );

    it('a top-level field named constructor, and a price property named toString', async () => {
      await expectRefused(
        'POST',
        '/v0/products',
        '{"name":"x","constructor":"y"}',
        'constructor',
        'reserved_key',
      );
      await expectRefused(
        'POST',
        '/v0/prices',
        JSON.stringify({
          ...priceBody(world.metrics[0].id),
          properties: { unitPrice: '1', toString: '2' },
        }),
        'properties.toString',
        'reserved_key',
      );
    });

    it('a query parameter named constructor or __proto__ is not silently ignored', async () => {
      for (const name of ['constructor', 'toString', '__proto__']) {
        const reply = await l.client.get(`/v0/products?${name}=1`, auth());
        expectClean(reply);
        expect(reply.status).toBe(400);
      }
    });

    it.each([
      ['arrays', '[', ']'],
      ['objects', '{"a":', '}'],
    ])(
      'a body nested 40,000 levels deep in %s (it overflowed the stack: 500)',
      async (_what, open, close) => {
        const depth = 40_000 / (open.length === 1 ? 1 : 5);
        const inner = open === '[' ? '' : '1';
        const body = `{"name":"x","metadata":${open.repeat(depth)}${inner}${close.repeat(depth)}}`;
        const keyed: Record<string, string>[] = [{}, { 'idempotency-key': `deep-${open}` }];
        for (const headers of keyed) {
          const reply = await l.client.request('POST', '/v0/products', {
            body,
            headers: { ...auth(), ...headers, 'content-type': 'application/json' },
          });
          expectClean(reply);
          expect({ status: reply.status, code: reply.body.code }).toEqual({
            status: 400,
            code: 'MALFORMED_JSON',
          });
        }
      },
    );

    it('accepts the API’s own nesting, and a body exactly at the limit of 32 levels is parsed', async () => {
      const nested = `{"name":"x","metadata":${'['.repeat(31)}${']'.repeat(31)}}`;
      const reply = await l.client.request('POST', '/v0/products', {
        body: nested,
        headers: { ...auth(), 'content-type': 'application/json' },
      });
      expect({ status: reply.status, code: reply.body.code }).toEqual({
        status: 400,
        code: 'INVALID_METADATA',
      });
    });
  });

  describe('lengths are counted in characters, as the database counts them', () => {
    it('200 characters with variation selectors are stored (200 code points) and 201 are refused', async () => {
      const exactly = 'a\uFE0F'.repeat(100);
      await roundTrip('/v0/products', { name: exactly }, { name: exactly });
      const over = l.client.post('/v0/products', { name: exactly + 'b' }, auth());
      const reply = await over;
      expectClean(reply);
      expect(reply.body.errors).toEqual([
        expect.objectContaining({ field: 'name', code: 'too_long' }),
      ]);
    });

    it('a description of 2,000 code points made of variation selectors is stored on both databases', async () => {
      const text = '\uFE0F'.repeat(1999) + 'x';
      await roundTrip('/v0/products', { name: 'x', description: text }, { description: text });
      const reply = await l.client.post(
        '/v0/products',
        { name: 'x', description: text + '\uFE0F' },
        auth(),
      );
      expect({ status: reply.status, code: reply.body.code }).toEqual({
        status: 400,
        code: 'TOO_LONG',
      });
    });

    it('a tax code of 50 astral characters is stored; 51 are refused', async () => {
      const code = '🧾'.repeat(50);
      await roundTrip(
        '/v0/plans',
        { name: 'Tax', productId: world.products[0], billingInterval: 'monthly', tax: { code } },
        { tax: { code } },
      );
      const reply = await l.client.post(
        '/v0/plans',
        {
          name: 'Tax',
          productId: world.products[0],
          billingInterval: 'monthly',
          tax: { code: code + '🧾' },
        },
        auth(),
      );
      expect({ status: reply.status, field: reply.body.errors?.[0]?.field }).toEqual({
        status: 400,
        field: 'tax.code',
      });
    });
  });

  describe('bodies of 10 MB', () => {
    const tenMegabytes = 10 * 1024 * 1024;
    const writes = (): [string, string][] => [
      ['POST', '/v0/products'],
      ['PATCH', `/v0/products/${world.products[0]}`],
      ['POST', '/v0/billableMetrics'],
      ['PATCH', `/v0/billableMetrics/${world.metrics[0].id}`],
      ['POST', '/v0/prices'],
      ['POST', '/v0/plans'],
      ['PATCH', `/v0/plans/${world.plans[0]}`],
      ['POST', '/v0/externalAccounts'],
      ['PATCH', `/v0/externalAccounts/${world.accounts[0]}`],
    ];

    it('are refused with 413 on every write route, announced by Content-Length, and change nothing', async () => {
      const before = await snapshot(l.t.dataSource, true);
      const big = `{"name":"${'a'.repeat(tenMegabytes)}"}`;
      for (const [method, path] of writes()) {
        const started = Date.now();
        const reply = await l.client.request(method, path, {
          body: big,
          headers: {
            ...auth(),
            'content-type': 'application/json',
            'idempotency-key': `big-${method}-${path}`,
          },
        });
        expectClean(reply);
        expect({ route: `${method} ${path}`, status: reply.status, code: reply.body.code }).toEqual(
          {
            route: `${method} ${path}`,
            status: 413,
            code: 'PAYLOAD_TOO_LARGE',
          },
        );
        expect(Date.now() - started).toBeLessThan(5000);
      }
      expect(await snapshot(l.t.dataSource, true)).toBe(before);
    });

    it('are refused with 413 when streamed without a Content-Length', async () => {
      const before = await snapshot(l.t.dataSource, true);
      for (const [method, path] of writes()) {
        const reply = await streamBody(
          l.client.baseUrl + path,
          method,
          { ...auth(), 'content-type': 'application/json' },
          tenMegabytes,
        );
        expect({ route: `${method} ${path}`, status: reply.status }).toEqual({
          route: `${method} ${path}`,
          status: 413,
        });
        expect(JSON.parse(reply.text)).toMatchObject({ error: 'payload_too_large' });
      }
      expect(await snapshot(l.t.dataSource, true)).toBe(before);
    });

    it('a body of exactly 100 KB is read, one byte more is refused', async () => {
      const frame = '{"name":"x","description":""}';
      const fill = 100 * 1024 - frame.length;
      const exact = `{"name":"x","description":"${'d'.repeat(fill)}"}`;
      expect(Buffer.byteLength(exact)).toBe(100 * 1024);
      const atLimit = await l.client.request('POST', '/v0/products', {
        body: exact,
        headers: { ...auth(), 'content-type': 'application/json' },
      });
      expect({ status: atLimit.status, code: atLimit.body.code }).toEqual({
        status: 400,
        code: 'TOO_LONG',
      });
      const over = await l.client.request('POST', '/v0/products', {
        body: exact.replace('"x"', '"xy"'),
        headers: { ...auth(), 'content-type': 'application/json' },
      });
      expect(over.status).toBe(413);
    });
  });
});
