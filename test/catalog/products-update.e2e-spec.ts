import { etagOf } from '../../src/common/etag';
import {
  TestApp,
  TestTenant,
  expectErrorEnvelope,
  resourceClient,
  startTestApp,
} from '../helpers/test-app';
import { TEST_DIALECT } from '../helpers/test-database';
import {
  PRODUCT_KEYS,
  MISSING_PRODUCT,
  MALFORMED_IDS,
  manyKeys,
  fieldErrors,
} from '../helpers/products-suite';

describe(`products (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let a: TestTenant;
  let b: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    a = await t.createTenant('Acme');
    b = await t.createTenant('Other Org');
  });
  afterAll(() => t.close());

  const { create, get, patch } = resourceClient(() => t, '/v0/products');

  async function createProduct(tenant: TestTenant, body: object = {}) {
    const res = await create(tenant, { name: 'Widget', ...body }).expect(201);
    return res.body;
  }

  describe('PATCH /v0/products/:id', () => {
    it('changes name and description and moves updatedAt', async () => {
      const product = await createProduct(a, { description: 'old' });
      await new Promise((r) => setTimeout(r, 5));
      const res = await patch(a, product.id, { name: 'Renamed', description: 'new' }).expect(200);
      expect(res.body).toMatchObject({
        id: product.id,
        name: 'Renamed',
        description: 'new',
        createdAt: product.createdAt,
      });
      expect(Object.keys(res.body).sort()).toEqual(PRODUCT_KEYS);
      expect(res.body.updatedAt > product.updatedAt).toBe(true);
      expect((await get(a, product.id).expect(200)).body).toEqual(res.body);
    });

    it('removes the description with null or an empty string', async () => {
      const product = await createProduct(a, { description: 'old' });
      expect((await patch(a, product.id, { description: null }).expect(200)).body.description).toBe(
        null,
      );
      await patch(a, product.id, { description: 'again' }).expect(200);
      expect((await patch(a, product.id, { description: '' }).expect(200)).body.description).toBe(
        null,
      );
    });

    it('leaves fields that are not sent as they were', async () => {
      const product = await createProduct(a, { description: 'keep', metadata: { k: 'v' } });
      const res = await patch(a, product.id, { name: 'Only the name' }).expect(200);
      expect(res.body).toMatchObject({ description: 'keep', metadata: { k: 'v' } });
    });

    it('answers 200 to an empty body and changes nothing, not even updatedAt', async () => {
      const product = await createProduct(a);
      await new Promise((r) => setTimeout(r, 5));
      const res = await patch(a, product.id, {}).expect(200);
      expect(res.body).toEqual(product);
      const noBody = await t.http().patch(`/v0/products/${product.id}`).set(a.auth).expect(200);
      expect(noBody.body).toEqual(product);
    });

    describe('metadata', () => {
      it('merges key by key and removes keys set to null', async () => {
        const product = await createProduct(a, { metadata: { a: 1, b: 'x', c: true } });
        const res = await patch(a, product.id, { metadata: { b: 'y', c: null, d: 2 } }).expect(200);
        expect(res.body.metadata).toEqual({ a: 1, b: 'y', d: 2 });
        expect((await get(a, product.id).expect(200)).body.metadata).toEqual({
          a: 1,
          b: 'y',
          d: 2,
        });
      });

      it('treats null for a key that does not exist as a no-op', async () => {
        const product = await createProduct(a, { metadata: { a: 1 } });
        const res = await patch(a, product.id, { metadata: { nope: null } }).expect(200);
        expect(res.body.metadata).toEqual({ a: 1 });
        expect(res.body.updatedAt).toBe(product.updatedAt);
      });

      it('removes every key when metadata is null', async () => {
        const product = await createProduct(a, { metadata: { a: 1, b: 2 } });
        expect((await patch(a, product.id, { metadata: null }).expect(200)).body.metadata).toEqual(
          {},
        );
      });

      it('refuses a merge that would leave more than 50 keys, and changes nothing', async () => {
        const product = await createProduct(a, { metadata: manyKeys(30) });
        const extra = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x${i}`, 'v']));
        const res = await patch(a, product.id, { metadata: extra, name: 'Should not stick' });
        expectErrorEnvelope(res, 400, 'validation_error');
        expect(fieldErrors(res)).toEqual({ metadata: 'invalid_metadata' });
        expect((await get(a, product.id).expect(200)).body).toEqual(product);
      });

      it('accepts a merge that removes as many keys as it adds at the limit', async () => {
        const product = await createProduct(a, { metadata: manyKeys(50) });
        const res = await patch(a, product.id, { metadata: { k0: null, fresh: 'v' } }).expect(200);
        expect(Object.keys(res.body.metadata)).toHaveLength(50);
        expect(res.body.metadata).not.toHaveProperty('k0');
        expect(res.body.metadata.fresh).toBe('v');
      });

      it.each([
        ['51 keys', manyKeys(51, null)],
        ['a 41-character key', { ['k'.repeat(41)]: 'v' }],
        ['a 501-character value', { note: 'v'.repeat(501) }],
        ['a nested object', { address: { city: 'Paris' } }],
        ['an array value', { tags: ['a'] }],
        ['an array', ['a']],
      ])('rejects a metadata patch with %s', async (_label, metadata) => {
        const product = await createProduct(a, { metadata: { keep: 'me' } });
        const res = await patch(a, product.id, { metadata });
        expectErrorEnvelope(res, 400, 'validation_error');
        expect(Object.keys(fieldErrors(res))).toEqual(['metadata']);
        expect((await get(a, product.id).expect(200)).body).toEqual(product);
      });
    });

    it.each([
      ['a null name', { name: null }, 'name', 'invalid_type'],
      ['an empty name', { name: '' }, 'name', 'too_short'],
      ['a blank name', { name: '  ' }, 'name', 'blank'],
      ['a name of 201 characters', { name: 'n'.repeat(201) }, 'name', 'too_long'],
      ['a numeric name', { name: 1 }, 'name', 'invalid_type'],
      [
        'a description of 2001 characters',
        { description: 'd'.repeat(2001) },
        'description',
        'too_long',
      ],
      ['a boolean description', { description: true }, 'description', 'invalid_type'],
      ['merchantId (even your own)', { merchantId: 'SELF' }, 'merchantId', 'field_not_allowed'],
      ['merchantId null', { merchantId: null }, 'merchantId', 'field_not_allowed'],
      ['an unknown field', { color: 'red' }, 'color', 'unknown_field'],
      ['id', { id: 'prod_01JD3Y7K2M5N8P1Q4R6S9T0VWX' }, 'id', 'field_not_allowed'],
      ['updatedAt', { updatedAt: '2026-01-01T00:00:00.000Z' }, 'updatedAt', 'field_not_allowed'],
    ])(
      'rejects %s with a 400 naming the field and changes nothing',
      async (_l, body, field, code) => {
        const product = await createProduct(a, { description: 'before' });
        const sent = { ...body } as Record<string, unknown>;
        if (sent.merchantId === 'SELF') sent.merchantId = a.organizationId;
        const res = await patch(a, product.id, {
          ...sent,
          ...(field === 'name' ? {} : { name: 'Nope' }),
        });
        expectErrorEnvelope(res, 400, 'validation_error');
        expect(fieldErrors(res)).toEqual({ [field]: code });
        expect((await get(a, product.id).expect(200)).body).toEqual(product);
      },
    );

    it('says which field never changes and what to do instead', async () => {
      const product = await createProduct(a);
      const res = await patch(a, product.id, { merchantId: b.organizationId });
      expectErrorEnvelope(res, 400, 'validation_error', 'FIELD_NOT_ALLOWED');
      expect(res.body.errors[0].field).toBe('merchantId');
      expect(res.body.errors[0].message).toMatch(/never changes.*create a new product/);
    });

    it("answers 404 for another organization's product and leaves it unchanged", async () => {
      const theirs = await createProduct(b, { name: 'Theirs' });
      expectErrorEnvelope(await patch(a, theirs.id, { name: 'Mine now' }), 404, 'not_found');
      expectErrorEnvelope(
        await patch(a, theirs.id, { name: 'Mine now' }, etagOf(theirs)),
        404,
        'not_found',
      );
      expect((await get(b, theirs.id).expect(200)).body).toEqual(theirs);
    });

    it('answers 404 for a missing product', async () => {
      expectErrorEnvelope(await patch(a, MISSING_PRODUCT, { name: 'x' }), 404, 'not_found');
    });

    it.each(MALFORMED_IDS)('answers 404 for the malformed id %s', async (id) => {
      expectErrorEnvelope(await patch(a, id, { name: 'x' }), 404, 'not_found');
    });

    describe('If-Match', () => {
      it('applies the change when If-Match is the ETag of the current product', async () => {
        const product = await createProduct(a);
        const read = await get(a, product.id).expect(200);
        // The ETag is a hash of the representation GET returns (src/common/etag.ts).
        const res = await patch(a, product.id, { name: 'Checked' }, etagOf(read.body)).expect(200);
        expect(res.body.name).toBe('Checked');
      });

      it('accepts the ETag of the create response and of a PATCH response', async () => {
        const product = await createProduct(a, { metadata: { z: 1, a: 2 } });
        const first = await patch(a, product.id, { name: 'One' }, etagOf(product)).expect(200);
        await patch(a, product.id, { name: 'Two' }, etagOf(first.body)).expect(200);
      });

      it('answers 412 for a stale ETag and changes nothing', async () => {
        const product = await createProduct(a);
        const stale = etagOf(product);
        await new Promise((r) => setTimeout(r, 5));
        const current = (await patch(a, product.id, { name: 'Changed by someone' }).expect(200))
          .body;
        const res = await patch(a, product.id, { name: 'Lost update' }, stale);
        expectErrorEnvelope(res, 412, 'precondition_failed', 'ETAG_MISMATCH');
        expect((await get(a, product.id).expect(200)).body).toEqual(current);
      });

      it('answers 412 for an If-Match that is no ETag of it at all', async () => {
        const product = await createProduct(a);
        expectErrorEnvelope(
          await patch(a, product.id, { name: 'x' }, '"nope"'),
          412,
          'precondition_failed',
        );
      });

      it('accepts If-Match: *', async () => {
        const product = await createProduct(a);
        await patch(a, product.id, { name: 'Any' }, '*').expect(200);
      });

      it('validates the body before checking If-Match', async () => {
        const product = await createProduct(a);
        expectErrorEnvelope(
          await patch(a, product.id, { name: '' }, '"stale"'),
          400,
          'validation_error',
        );
      });
    });

    it('loses no update when several PATCHes of one product run at once', async () => {
      const product = await createProduct(a);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => patch(a, product.id, { metadata: { [`key${i}`]: i } })),
      );
      for (const res of results) expect(res.status).toBe(200);
      const final = await get(a, product.id).expect(200);
      expect(final.body.metadata).toEqual(
        Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`key${i}`, i])),
      );
    });
  });
});
