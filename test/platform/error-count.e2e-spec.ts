import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

/** 10,000 unknown fields in just under 100 KB: `"f0000":0,` is ten bytes. */
function bodyOfUnknownFields(count: number): string {
  const fields = Array.from({ length: count }, (_, i) => `"f${String(i).padStart(4, '0')}":0`);
  return `{${fields.join(',')}}`;
}

/**
 * Issue 17, finding 6: `errors` holds at most 100 entries and the message says when more were
 * found (docs/api.md §3), so a small body cannot make a large answer, nor a large stored one.
 */
describe(`error amplification (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  it('answers a small 400 listing the first 100 of 10,000 unknown fields, and stores that', async () => {
    const body = bodyOfUnknownFields(10_000);
    expect(body.length).toBeGreaterThan(99_000);
    expect(body.length).toBeLessThan(100 * 1024);
    const send = () =>
      t
        .http()
        .post('/v0/products')
        .set(tenant.auth)
        .set('Idempotency-Key', 'many-unknown-fields')
        .set('Content-Type', 'application/json')
        .send(body);

    const res = await send();
    expectErrorEnvelope(res, 400, 'validation_error');
    expect(res.text.length).toBeLessThan(20_000);
    expect(res.body.errors).toHaveLength(100);
    expect(res.body.errors[0]).toMatchObject({ code: 'unknown_field' });
    expect(res.body.message).toMatch(/10001 problems were found; the first 100 are listed/);

    const [record] = await t.dataSource.query<{ response_body: string }[]>(
      `SELECT response_body FROM idempotency_records WHERE idempotency_key = 'many-unknown-fields'`,
    );
    expect(record.response_body.length).toBeLessThan(20_000);

    const replay = await send();
    expect(replay.status).toBe(400);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.errors).toHaveLength(100);
  });

  it('lists every problem, without a note, when there are at most 100', async () => {
    const res = await t
      .http()
      .post('/v0/products')
      .set(tenant.auth)
      .set('Content-Type', 'application/json')
      .send(bodyOfUnknownFields(99));
    expectErrorEnvelope(res, 400, 'validation_error');
    // 99 unknown fields and the missing name.
    expect(res.body.errors).toHaveLength(100);
    expect(res.body.message).toBe('Request validation failed');
  });

  it('cuts a field path that echoes a very long key', async () => {
    const key = 'k'.repeat(90_000);
    const res = await t
      .http()
      .post('/v0/products')
      .set(tenant.auth)
      .set('Content-Type', 'application/json')
      .send(`{"name":"x","${key}":1}`);
    expectErrorEnvelope(res, 400, 'validation_error', 'UNKNOWN_FIELD');
    expect(res.text.length).toBeLessThan(2_000);
    expect(res.body.errors[0].field).toBe(`${'k'.repeat(199)}…`);
  });
});
