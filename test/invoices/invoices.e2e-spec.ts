import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDraftInvoice } from '../helpers/invoices-factory';
import { TwoModeTenant, createTwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

const INVOICE_KEYS = [
  'id',
  'object',
  'livemode',
  'merchantId',
  'customerId',
  'subscriptionId',
  'planId',
  'number',
  'status',
  'currency',
  'periodStart',
  'periodEnd',
  'lines',
  'subtotal',
  'tax',
  'total',
  'issuedAt',
  'paidAt',
  'voidedAt',
  'paymentReference',
  'createdAt',
  'updatedAt',
];

describe(`invoices (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acme: TwoModeTenant;
  let tenant: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTwoModeTenant(t, 'Acme Analytics Ltd');
    tenant = acme.live;
    other = await t.createTenant('Other');
  });
  afterAll(() => t.close());

  const get = (id: string, who: TestTenant = tenant) =>
    t.http().get(`/v0/invoices/${id}`).set(who.auth);
  const post = (id: string, action: string, body?: object, who: TestTenant = tenant) => {
    const req = t.http().post(`/v0/invoices/${id}/${action}`).set(who.auth);
    return body === undefined ? req : req.send(body);
  };
  const eventsOf = async (type: string, id: string, who: TestTenant = tenant) => {
    const res = await t.http().get(`/v0/events?type=${type}&limit=100`).set(who.auth).expect(200);
    return (res.body.data as { data: { object: { id: string } } }[]).filter(
      (e) => e.data.object.id === id,
    );
  };

  it('shows a draft with every field, its lines in order, totals from the lines', async () => {
    const { id, subscriptionId, customerId } = await createDraftInvoice(t, tenant);
    const res = await get(id).expect(200);
    expect(Object.keys(res.body)).toEqual(INVOICE_KEYS);
    expect(res.body).toMatchObject({
      id,
      object: 'invoice',
      livemode: true,
      merchantId: tenant.organizationId,
      customerId,
      subscriptionId,
      number: null,
      status: 'draft',
      currency: 'USD',
      periodStart: '2026-01-01T00:00:00.000Z',
      periodEnd: '2026-02-01T00:00:00.000Z',
      subtotal: '11.85',
      tax: { behavior: 'exclusive', rate: '20', amount: '2.37' },
      total: '14.22',
      issuedAt: null,
      paidAt: null,
      voidedAt: null,
      paymentReference: null,
    });
    expect(res.body.lines).toEqual([
      {
        id: expect.stringMatching(/^il_[0-9A-Za-z]{16,40}$/),
        type: 'fixedFee',
        description: 'Pro plan',
        priceId: null,
        billableMetricId: null,
        model: null,
        quantity: null,
        amount: '10.00',
        periodStart: '2026-01-01T00:00:00.000Z',
        periodEnd: '2026-02-01T00:00:00.000Z',
      },
      expect.objectContaining({
        type: 'usage',
        quantity: '1234',
        amount: '1.85',
        model: 'standard',
      }),
    ]);
    expect(res.headers.etag).toBeDefined();
    expect(await eventsOf('invoice.created', id)).toHaveLength(1);
  });

  it('refuses a second invoice for one subscription and period: the draft is recomputed instead', async () => {
    const first = await createDraftInvoice(t, tenant);
    const again = await createDraftInvoice(t, tenant, {
      subscriptionId: first.subscriptionId,
      customerId: first.customerId,
      tax: { behavior: 'inclusive', rate: '20' },
    });
    expect(again.id).toBe(first.id);
    const res = await get(first.id).expect(200);
    expect(res.body.tax).toEqual({ behavior: 'inclusive', rate: '20', amount: '1.98' });
    expect(res.body.total).toBe('11.85');
    const list = await t
      .http()
      .get(`/v0/invoices?subscriptionId=${first.subscriptionId}`)
      .set(tenant.auth)
      .expect(200);
    expect(list.body.pagination.total).toBe(1);
    expect(await eventsOf('invoice.created', first.id)).toHaveLength(1);
  });

  describe('status moves', () => {
    it('finalizes a draft: issued, numbered, issuedAt set, invoice.issued recorded', async () => {
      const { id } = await createDraftInvoice(t, tenant);
      const res = await post(id, 'finalize').expect(200);
      expect(res.body).toMatchObject({
        id,
        status: 'issued',
        number: expect.stringMatching(/^INV-\d{6,}$/),
      });
      expect(res.body.issuedAt).toMatch(/Z$/);
      expect((await get(id).expect(200)).body).toEqual(res.body);
      const [event] = await eventsOf('invoice.issued', id);
      expect(event.data.object).toEqual(res.body);
    });

    it('pays an issued invoice with paidAt and reference, and records invoice.paid', async () => {
      const { id } = await createDraftInvoice(t, tenant);
      await post(id, 'finalize').expect(200);
      const res = await post(id, 'pay', {
        paidAt: '2026-02-03T09:30:00.000Z',
        reference: 'TRX-42',
      }).expect(200);
      expect(res.body).toMatchObject({
        status: 'paid',
        paidAt: '2026-02-03T09:30:00.000Z',
        paymentReference: 'TRX-42',
      });
      expect(await eventsOf('invoice.paid', id)).toHaveLength(1);
    });

    it('pays with paidAt defaulting to now and no reference (empty body or none)', async () => {
      const { id } = await createDraftInvoice(t, tenant);
      await post(id, 'finalize').expect(200);
      const res = await post(id, 'pay').expect(200);
      expect(res.body.paymentReference).toBeNull();
      expect(Date.parse(res.body.paidAt)).toBeGreaterThan(Date.now() - 60_000);
    });

    it('voids an issued invoice, which keeps its number', async () => {
      const { id } = await createDraftInvoice(t, tenant);
      const issued = await post(id, 'finalize').expect(200);
      const res = await post(id, 'void', {}).expect(200);
      expect(res.body).toMatchObject({ status: 'void', number: issued.body.number });
      expect(res.body.voidedAt).toMatch(/Z$/);
      expect(await eventsOf('invoice.voided', id)).toHaveLength(1);
    });

    it.each([
      ['draft', [], 'pay'],
      ['draft', [], 'void'],
      ['issued', ['finalize'], 'finalize'],
      ['paid', ['finalize', 'pay'], 'pay'],
      ['paid', ['finalize', 'pay'], 'void'],
      ['paid', ['finalize', 'pay'], 'finalize'],
      ['void', ['finalize', 'void'], 'void'],
      ['void', ['finalize', 'void'], 'pay'],
      ['void', ['finalize', 'void'], 'finalize'],
    ])(
      'refuses on a %s invoice (after %j) to %s: 409 INVALID_STATUS_TRANSITION, nothing changed',
      async (_status, before, action) => {
        const { id } = await createDraftInvoice(t, tenant);
        for (const step of before) await post(id, step).expect(200);
        const was = (await get(id).expect(200)).body;
        const res = await post(id, action);
        expectErrorEnvelope(res, 409, 'conflict', 'INVALID_STATUS_TRANSITION');
        expect((await get(id).expect(200)).body).toEqual(was);
      },
    );

    it.each<[string, object, string]>([
      ['a paidAt that is not a timestamp', { paidAt: 'yesterday' }, 'paidAt'],
      ['a paidAt with an offset', { paidAt: '2026-02-03T09:30:00+01:00' }, 'paidAt'],
      ['an empty reference', { reference: '' }, 'reference'],
      ['a reference of 201 characters', { reference: 'x'.repeat(201) }, 'reference'],
      ['a numeric reference', { reference: 42 }, 'reference'],
      ['an unknown field', { amount: '1.00' }, 'amount'],
    ])('refuses to pay with %s (400 naming it)', async (_label, body, field) => {
      const { id } = await createDraftInvoice(t, tenant);
      await post(id, 'finalize').expect(200);
      const res = await post(id, 'pay', body);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      expect((await get(id).expect(200)).body.status).toBe('issued');
    });

    it('says a numeric reference must be a string, not that its length is wrong', async () => {
      const { id } = await createDraftInvoice(t, tenant);
      await post(id, 'finalize').expect(200);
      const res = await post(id, 'pay', { reference: 42 });
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors).toEqual([
        expect.objectContaining({ field: 'reference', code: 'invalid_type' }),
      ]);
    });

    it('refuses a body on finalize and void', async () => {
      const { id } = await createDraftInvoice(t, tenant);
      expectErrorEnvelope(await post(id, 'finalize', { force: true }), 400, 'validation_error');
      expect((await get(id).expect(200)).body.status).toBe('draft');
    });
  });

  describe('numbers', () => {
    it('are consecutive per organization and mode with no gap or repeat, however many issue at once', async () => {
      const org = await createTwoModeTenant(t, 'Numbers');
      const drafts = await Promise.all(
        Array.from({ length: 12 }, () => createDraftInvoice(t, org.live)),
      );
      const testDrafts = await Promise.all(
        Array.from({ length: 3 }, () => createDraftInvoice(t, org.test, { livemode: false })),
      );
      const issued = await Promise.all([
        ...drafts.map((d) => post(d.id, 'finalize', undefined, org.live)),
        ...testDrafts.map((d) => post(d.id, 'finalize', undefined, org.test)),
      ]);
      expect(issued.map((r) => r.status)).toEqual(issued.map(() => 200));
      const live = issued.slice(0, 12).map((r) => r.body.number as string);
      const test = issued.slice(12).map((r) => r.body.number as string);
      const sequence = (n: number) =>
        Array.from({ length: n }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`);
      expect([...live].sort()).toEqual(sequence(12));
      expect([...test].sort()).toEqual(sequence(3));
    });
  });

  describe('lists', () => {
    it('filters by customerId, subscriptionId and status, newest first', async () => {
      const org = await t.createTenant('Lists');
      const a = await createDraftInvoice(t, org);
      const b = await createDraftInvoice(t, org, { customerId: a.customerId });
      const c = await createDraftInvoice(t, org);
      await post(b.id, 'finalize', undefined, org).expect(200);
      const list = (query: string) =>
        t.http().get(`/v0/invoices${query}`).set(org.auth).expect(200);
      const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((i) => i.id);
      expect(ids(await list(''))).toEqual([c.id, b.id, a.id]);
      expect(ids(await list(`?customerId=${a.customerId}`))).toEqual([b.id, a.id]);
      expect(ids(await list(`?subscriptionId=${c.subscriptionId}`))).toEqual([c.id]);
      expect(ids(await list('?status=issued'))).toEqual([b.id]);
      expect(ids(await list('?status=draft&limit=1&offset=1'))).toEqual([a.id]);
      expect((await list('?status=paid')).body).toEqual({
        data: [],
        pagination: { limit: 10, offset: 0, total: 0 },
      });
    });

    it.each([
      ['?status=open', 'status'],
      ['?customerId=sub_01JD3Y2Q6J8C4N1V9W5X7Z0ABC', 'customerId'],
      ['?subscriptionId=x', 'subscriptionId'],
      ['?number=INV-000001', 'number'],
      ['?limit=101', 'limit'],
    ])('refuses %s with a 400 naming %s', async (query, field) => {
      const res = await t.http().get(`/v0/invoices${query}`).set(tenant.auth);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors[0].field).toBe(field);
    });
  });

  describe('tenancy and modes', () => {
    it('answers 404 to another organization and to the other mode, on every route, and lists nothing of them', async () => {
      const { id } = await createDraftInvoice(t, tenant);
      const missing = 'inv_01JD3Y2Q6J8C4N1V9W5X7Z0ABC';
      for (const who of [other, acme.test]) {
        for (const [method, path] of [
          ['get', ''],
          ['get', '/pdf'],
          ['post', '/finalize'],
          ['post', '/pay'],
          ['post', '/void'],
        ] as const) {
          const res = await t.http()[method](`/v0/invoices/${id}${path}`).set(who.auth);
          expectErrorEnvelope(res, 404, 'not_found', 'RESOURCE_NOT_FOUND');
          const none = await t.http()[method](`/v0/invoices/${missing}${path}`).set(who.auth);
          expect(res.body.message.replace(id, missing)).toBe(none.body.message);
        }
        const list = await t.http().get('/v0/invoices?limit=100').set(who.auth).expect(200);
        expect(JSON.stringify(list.body)).not.toContain(id);
      }
      expect((await get(id).expect(200)).body.status).toBe('draft');
    });

    it('answers 404 to an id of the wrong shape', async () => {
      for (const path of [
        '/v0/invoices/nope',
        '/v0/invoices/price_01JD3Y2Q6J8C4N1V9W5X7Z0ABC/pdf',
      ]) {
        expectErrorEnvelope(await t.http().get(path).set(tenant.auth), 404, 'not_found');
      }
      expectErrorEnvelope(await post('x', 'finalize'), 404, 'not_found');
    });

    it('needs an API key', async () => {
      const { id } = await createDraftInvoice(t, tenant);
      expectErrorEnvelope(await t.http().get(`/v0/invoices/${id}/pdf`), 401, 'unauthorized');
    });
  });

  describe('the PDF', () => {
    const text = (pdf: Buffer) => {
      const dir = mkdtempSync(join(tmpdir(), 'invoice-pdf-'));
      const file = join(dir, 'invoice.pdf');
      writeFileSync(file, pdf);
      return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    };
    const pdfOf = async (id: string) => {
      const res = await t
        .http()
        .get(`/v0/invoices/${id}/pdf`)
        .set(tenant.auth)
        .buffer(true)
        .parse((r, done) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => done(null, Buffer.concat(chunks)));
        })
        .expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/pdf/);
      const body = res.body as Buffer;
      expect(body.subarray(0, 5).toString()).toBe('%PDF-');
      return text(body);
    };

    it('prints a draft as DRAFT with the organization, customer, period, lines and totals', async () => {
      const { id } = await createDraftInvoice(t, tenant);
      const page = await pdfOf(id);
      for (const expected of [
        'Acme Analytics Ltd',
        'Invoice DRAFT',
        'Ada Lovelace',
        'ada@example.com',
        '12 Analytical Row',
        'London, N1 9GU',
        'GB',
        '2026-01-01 00:00 UTC to 2026-02-01 00:00 UTC',
        'Issue date: not issued',
        'Pro plan',
        'API calls',
        '1234',
        '10.00',
        '1.85',
        'Subtotal',
        '11.85 USD',
        'Tax (20%, exclusive)',
        '2.37 USD',
        'Total',
        '14.22 USD',
        'Currency: USD',
      ]) {
        expect(page).toContain(expected);
      }
    });

    it('prints an issued invoice with its number and issue date, in JPY without decimals', async () => {
      const { id } = await createDraftInvoice(t, tenant, {
        currency: 'JPY',
        tax: { behavior: 'exclusive', rate: '10' },
        lines: [
          {
            type: 'usage',
            description: 'Tokens',
            priceId: null,
            billableMetricId: null,
            model: 'graduated',
            priceProperties: null,
            quantity: '1500',
            amount: '105',
            periodStart: new Date('2026-01-01T00:00:00.000Z'),
            periodEnd: new Date('2026-02-01T00:00:00.000Z'),
          },
        ],
      });
      const issued = await post(id, 'finalize').expect(200);
      const page = await pdfOf(id);
      expect(page).toContain(`Invoice ${issued.body.number}`);
      expect(page).toContain(`Issue date: ${issued.body.issuedAt.slice(0, 10)}`);
      expect(page).not.toContain('DRAFT');
      for (const expected of ['Tokens', '1500', '105 JPY', '11 JPY', '116 JPY']) {
        expect(page).toContain(expected);
      }
    });
  });
});
