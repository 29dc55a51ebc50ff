import { captureLogs } from '../helpers/log-capture';
import { createTwoModeTenant, TwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

const PUBLIC_URL = 'https://93.184.216.34/hooks';

/**
 * Webhook endpoints over HTTP with the forgery rules on (WEBHOOK_ALLOW_PRIVATE_NETWORKS unset)
 * and the dispatcher off: what is saved, shown, refused and recorded. Delivery is
 * delivery.e2e-spec.ts.
 */
describe(`webhook endpoints (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let acme: TwoModeTenant;
  let other: TwoModeTenant;
  const logs = captureLogs();

  beforeAll(async () => {
    t = await startTestApp(
      { WEBHOOK_DISPATCHER: 'off', LOG_LEVEL: 'debug' },
      { logDestination: logs.destination },
    );
    acme = await createTwoModeTenant(t, 'Acme');
    other = await createTwoModeTenant(t, 'Other');
  });
  afterAll(() => t.close());

  // An organization has at most 16 endpoints per mode: each test starts with none.
  beforeEach(async () => {
    for (const tenant of [acme.test, acme.live, other.test, other.live]) {
      const page = await t
        .http()
        .get('/v0/webhookEndpoints?limit=100')
        .set(tenant.auth)
        .expect(200);
      for (const e of page.body.data as { id: string }[]) {
        await t.http().delete(`/v0/webhookEndpoints/${e.id}`).set(tenant.auth).expect(200);
      }
    }
  });

  /** The events of `type` recorded for the endpoint `id`, newest first. */
  async function eventsOf(auth: { Authorization: string }, type: string, id: string) {
    const events = await t.http().get(`/v0/events?type=${type}&limit=100`).set(auth).expect(200);
    return events.body.data.filter((e: any) => e.data.object.id === id);
  }

  async function create(auth: { Authorization: string }, body: Record<string, unknown> = {}) {
    const res = await t
      .http()
      .post('/v0/webhookEndpoints')
      .set(auth)
      .send({ url: PUBLIC_URL, enabledEvents: ['*'], ...body });
    expect(res.status).toBe(201);
    return res.body;
  }

  it('refuses a 17th endpoint of an organization and mode with 409 WEBHOOK_ENDPOINT_LIMIT, disabled ones counted', async () => {
    const made = [];
    for (let i = 0; i < 16; i++) made.push(await create(acme.test.auth));
    await t
      .http()
      .patch(`/v0/webhookEndpoints/${made[0].id}`)
      .set(acme.test.auth)
      .send({ status: 'disabled' })
      .expect(200);
    const refused = await t
      .http()
      .post('/v0/webhookEndpoints')
      .set(acme.test.auth)
      .send({ url: PUBLIC_URL, enabledEvents: ['*'] });
    expectErrorEnvelope(refused, 409, 'conflict', 'WEBHOOK_ENDPOINT_LIMIT');
    // Nothing was written: still 16, and no event for it.
    const list = await t.http().get('/v0/webhookEndpoints?limit=100').set(acme.test.auth);
    expect(list.body.pagination.total).toBe(16);
    // The other mode and the other organization have their own 16.
    await create(acme.live.auth);
    await create(other.test.auth);
    // A deleted endpoint frees its place.
    await t.http().delete(`/v0/webhookEndpoints/${made[0].id}`).set(acme.test.auth).expect(200);
    await create(acme.test.auth);
  });

  it('creates an endpoint, shows its secret once, and records webhookEndpoint.created without it', async () => {
    const res = await t
      .http()
      .post('/v0/webhookEndpoints')
      .set(acme.test.auth)
      .set('Idempotency-Key', 'we-create-1')
      .send({
        url: PUBLIC_URL,
        enabledEvents: ['plan.*', 'price.updated'],
        description: 'Listener',
        metadata: { team: 'billing' },
      });
    expect(res.status).toBe(201);
    const { secret, ...shown } = res.body;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(shown).toEqual({
      id: expect.stringMatching(/^we_[0-9A-Za-z]{16,40}$/),
      object: 'webhookEndpoint',
      livemode: false,
      url: PUBLIC_URL,
      enabledEvents: ['plan.*', 'price.updated'],
      description: 'Listener',
      metadata: { team: 'billing' },
      status: 'enabled',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const read = await t.http().get(`/v0/webhookEndpoints/${shown.id}`).set(acme.test.auth);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(shown);

    const [event] = await eventsOf(acme.test.auth, 'webhookEndpoint.created', shown.id);
    expect(event).toMatchObject({
      type: 'webhookEndpoint.created',
      livemode: false,
      data: { object: shown, previousAttributes: null },
      request: { id: res.headers['x-request-id'], idempotencyKey: 'we-create-1' },
      actor: { type: 'apiKey', id: acme.test.apiKeyId },
    });

    // An idempotent replay answers the same (secret included) and records nothing more.
    const replay = await t
      .http()
      .post('/v0/webhookEndpoints')
      .set(acme.test.auth)
      .set('Idempotency-Key', 'we-create-1')
      .send({
        url: PUBLIC_URL,
        enabledEvents: ['plan.*', 'price.updated'],
        description: 'Listener',
        metadata: { team: 'billing' },
      });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    // Location names the new endpoint, as every create's does, and is replayed with the answer.
    expect(res.headers.location).toBe(`/v0/webhookEndpoints/${shown.id}`);
    expect(replay.headers.location).toBe(res.headers.location);
    expect(await eventsOf(acme.test.auth, 'webhookEndpoint.created', shown.id)).toHaveLength(1);
  });

  it('updates an endpoint with previousAttributes, and records nothing for a no-op', async () => {
    const created = await create(acme.live.auth, { description: 'Before' });
    const res = await t
      .http()
      .patch(`/v0/webhookEndpoints/${created.id}`)
      .set(acme.live.auth)
      .send({ description: 'After', enabledEvents: ['product.*'], metadata: { a: '1' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      description: 'After',
      enabledEvents: ['product.*'],
      metadata: { a: '1' },
    });
    expect(res.body.secret).toBeUndefined();
    const noop = await t
      .http()
      .patch(`/v0/webhookEndpoints/${created.id}`)
      .set(acme.live.auth)
      .send({ description: 'After' });
    expect(noop.status).toBe(200);
    expect(noop.body).toEqual(res.body);

    const mine = await eventsOf(acme.live.auth, 'webhookEndpoint.updated', created.id);
    expect(mine).toHaveLength(1);
    expect(mine[0].data).toEqual({
      object: res.body,
      previousAttributes: { description: 'Before', enabledEvents: ['*'], metadata: {} },
    });
  });

  it('deletes an endpoint: 200 with deleted, then 404, gone from the list, with an event', async () => {
    const created = await create(acme.live.auth);
    const res = await t.http().delete(`/v0/webhookEndpoints/${created.id}`).set(acme.live.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.id, object: 'webhookEndpoint', deleted: true });
    const gone = await t.http().get(`/v0/webhookEndpoints/${created.id}`).set(acme.live.auth);
    expectErrorEnvelope(gone, 404, 'not_found');
    const list = await t.http().get('/v0/webhookEndpoints?limit=100').set(acme.live.auth);
    expect(list.body.data.map((e: any) => e.id)).not.toContain(created.id);
    expect(await eventsOf(acme.live.auth, 'webhookEndpoint.deleted', created.id)).toHaveLength(1);
  });

  it('rotates the secret: a new one, shown once; GET never shows either', async () => {
    const created = await create(acme.live.auth);
    const res = await t
      .http()
      .post(`/v0/webhookEndpoints/${created.id}/rotateSecret`)
      .set(acme.live.auth);
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body.secret).not.toBe(created.secret);
    const read = await t.http().get(`/v0/webhookEndpoints/${created.id}`).set(acme.live.auth);
    expect(JSON.stringify(read.body)).not.toContain('whsec_');
  });

  it('bumps updatedAt on a rotation and records webhookEndpoint.updated, without a secret', async () => {
    const { secret: _, ...created } = await create(acme.live.auth);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const res = await t
      .http()
      .post(`/v0/webhookEndpoints/${created.id}/rotateSecret`)
      .set(acme.live.auth)
      .set('Idempotency-Key', `rotate-${created.id}`);
    expect(res.status).toBe(200);
    const { secret, ...shown } = res.body;
    expect(new Date(shown.updatedAt).getTime()).toBeGreaterThan(
      new Date(created.updatedAt).getTime(),
    );
    expect(shown).toEqual({ ...created, updatedAt: shown.updatedAt });
    const read = await t.http().get(`/v0/webhookEndpoints/${created.id}`).set(acme.live.auth);
    expect(read.body).toEqual(shown);

    const replay = await t
      .http()
      .post(`/v0/webhookEndpoints/${created.id}/rotateSecret`)
      .set(acme.live.auth)
      .set('Idempotency-Key', `rotate-${created.id}`);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const mine = await eventsOf(acme.live.auth, 'webhookEndpoint.updated', created.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      livemode: true,
      data: { object: shown, previousAttributes: { updatedAt: created.updatedAt } },
      request: { id: res.headers['x-request-id'], idempotencyKey: `rotate-${created.id}` },
      actor: { type: 'apiKey', id: acme.live.apiKeyId },
    });
    expect(JSON.stringify(mine[0])).not.toContain(secret.slice(6));
    expect(JSON.stringify(mine[0])).not.toContain('whsec_');
  });

  it('answers create and rotateSecret with the ETag GET gives, which If-Match then takes', async () => {
    const send = () =>
      t
        .http()
        .post('/v0/webhookEndpoints')
        .set(acme.live.auth)
        .set('Idempotency-Key', `etag-${process.pid}-${TEST_DIALECT}`)
        .send({ url: PUBLIC_URL, enabledEvents: ['*'], metadata: { b: 2, a: '1' } });
    const created = await send();
    expect(created.status).toBe(201);
    const id = created.body.id;
    const read = await t.http().get(`/v0/webhookEndpoints/${id}`).set(acme.live.auth);
    expect(read.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(created.headers.etag).toBe(read.headers.etag);
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.etag).toBe(read.headers.etag);
    const patched = await t
      .http()
      .patch(`/v0/webhookEndpoints/${id}`)
      .set(acme.live.auth)
      .set('If-Match', created.headers.etag)
      .send({ description: 'Tagged' });
    expect(patched.status).toBe(200);

    const rotated = await t
      .http()
      .post(`/v0/webhookEndpoints/${id}/rotateSecret`)
      .set(acme.live.auth);
    expect(rotated.status).toBe(200);
    const reread = await t.http().get(`/v0/webhookEndpoints/${id}`).set(acme.live.auth);
    expect(rotated.headers.etag).toBe(reread.headers.etag);
    const deleted = await t
      .http()
      .delete(`/v0/webhookEndpoints/${id}`)
      .set(acme.live.auth)
      .set('If-Match', rotated.headers.etag);
    expect(deleted.status).toBe(200);
  });

  describe('rotateSecret takes no parameters', () => {
    it.each<[string, unknown, string[]]>([
      ['an unknown field', { foo: 1 }, ['foo']],
      ['two unknown fields', { foo: 1, bar: null }, ['foo', 'bar']],
      ['a secret of its own', { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }, ['secret']],
    ])('refuses %s, and changes nothing', async (_label, body, fields) => {
      const created = await create(acme.live.auth);
      const res = await t
        .http()
        .post(`/v0/webhookEndpoints/${created.id}/rotateSecret`)
        .set(acme.live.auth)
        .send(body as object);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors).toEqual(
        fields.map((field) => ({ field, code: 'unknown_field', message: expect.any(String) })),
      );
      expect(res.text).not.toContain('whsec_');
      const read = await t.http().get(`/v0/webhookEndpoints/${created.id}`).set(acme.live.auth);
      expect(read.body.updatedAt).toBe(created.updatedAt);
    });

    it.each(['[]', '[{"foo":1}]', '"x"', '42', 'null'])('refuses the body %s', async (raw) => {
      const created = await create(acme.live.auth);
      const res = await t
        .http()
        .post(`/v0/webhookEndpoints/${created.id}/rotateSecret`)
        .set(acme.live.auth)
        .set('Content-Type', 'application/json')
        .send(raw);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors).toEqual([
        { field: 'body', code: 'invalid_type', message: expect.any(String) },
      ]);
    });

    it('accepts no body and {}', async () => {
      const created = await create(acme.live.auth);
      for (const body of [undefined, {}]) {
        const req = t
          .http()
          .post(`/v0/webhookEndpoints/${created.id}/rotateSecret`)
          .set(acme.live.auth);
        const res = await (body === undefined ? req : req.send(body));
        expect(res.status).toBe(200);
        expect(res.body.secret).toMatch(/^whsec_/);
      }
    });
  });

  describe('description and metadata follow the rules of products', () => {
    it('stores "" as a null description, on create and on PATCH', async () => {
      const created = await create(acme.live.auth, { description: '' });
      expect(created.description).toBeNull();
      const read = await t.http().get(`/v0/webhookEndpoints/${created.id}`).set(acme.live.auth);
      expect(read.body.description).toBeNull();
      await t
        .http()
        .patch(`/v0/webhookEndpoints/${created.id}`)
        .set(acme.live.auth)
        .send({ description: 'Something' })
        .expect(200);
      const cleared = await t
        .http()
        .patch(`/v0/webhookEndpoints/${created.id}`)
        .set(acme.live.auth)
        .send({ description: '' });
      expect(cleared.status).toBe(200);
      expect(cleared.body.description).toBeNull();
      const again = await t
        .http()
        .patch(`/v0/webhookEndpoints/${created.id}`)
        .set(acme.live.auth)
        .send({ description: '' });
      expect(again.body).toEqual(cleared.body);
    });

    it('refuses metadata: null on create, and takes it on PATCH to remove every key', async () => {
      const res = await t
        .http()
        .post('/v0/webhookEndpoints')
        .set(acme.live.auth)
        .send({ url: PUBLIC_URL, enabledEvents: ['*'], metadata: null });
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors).toEqual([
        { field: 'metadata', code: 'invalid_type', message: expect.any(String) },
      ]);
      const created = await create(acme.live.auth, { metadata: { a: '1', b: 2 } });
      const cleared = await t
        .http()
        .patch(`/v0/webhookEndpoints/${created.id}`)
        .set(acme.live.auth)
        .send({ metadata: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.metadata).toEqual({});
    });
  });

  it('keeps endpoints apart by organization and mode', async () => {
    const testOnly = await create(acme.test.auth);
    const liveOnly = await create(acme.live.auth);
    for (const [auth, id] of [
      [acme.live.auth, testOnly.id],
      [acme.test.auth, liveOnly.id],
      [other.live.auth, liveOnly.id],
      [other.test.auth, testOnly.id],
    ] as const) {
      for (const req of [
        t.http().get(`/v0/webhookEndpoints/${id}`),
        t.http().patch(`/v0/webhookEndpoints/${id}`).send({ description: 'x' }),
        t.http().delete(`/v0/webhookEndpoints/${id}`),
        t.http().post(`/v0/webhookEndpoints/${id}/rotateSecret`),
        t.http().get(`/v0/webhookEndpoints/${id}/deliveries`),
      ]) {
        expectErrorEnvelope(await req.set(auth), 404, 'not_found', 'RESOURCE_NOT_FOUND');
      }
    }
    const liveList = await t.http().get('/v0/webhookEndpoints?limit=100').set(acme.live.auth);
    expect(liveList.body.data.every((e: any) => e.livemode === true)).toBe(true);
    expect(liveList.body.data.map((e: any) => e.id)).not.toContain(testOnly.id);
    const otherList = await t.http().get('/v0/webhookEndpoints').set(other.live.auth);
    expect(otherList.body).toEqual({ data: [], pagination: { limit: 10, offset: 0, total: 0 } });
  });

  describe('refuses bad input with a 400', () => {
    it.each([
      [{ enabledEvents: ['*'] }, 'url'],
      [{ url: PUBLIC_URL }, 'enabledEvents'],
      [{ url: PUBLIC_URL, enabledEvents: [] }, 'enabledEvents'],
      [{ url: PUBLIC_URL, enabledEvents: ['plan.exploded'] }, 'enabledEvents[0]'],
      [{ url: PUBLIC_URL, enabledEvents: ['*', '*'] }, 'enabledEvents[1]'],
      [{ url: PUBLIC_URL, enabledEvents: 'plan.*' }, 'enabledEvents'],
      [{ url: 42, enabledEvents: ['*'] }, 'url'],
      [{ url: PUBLIC_URL, enabledEvents: ['*'], secret: 'whsec_x' }, 'secret'],
      [{ url: PUBLIC_URL, enabledEvents: ['*'], metadata: { a: { b: 1 } } }, 'metadata'],
    ])('POST %j (field %s)', async (body, field) => {
      const res = await t.http().post('/v0/webhookEndpoints').set(acme.live.auth).send(body);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it.each([
      ['secret', 'whsec_x', /shown once/],
      ['status', 'disabled', /starts "enabled"/],
    ])('POST with %s: a field the service sets, refused as such', async (field, value, why) => {
      const res = await t
        .http()
        .post('/v0/webhookEndpoints')
        .set(acme.live.auth)
        .send({ url: PUBLIC_URL, enabledEvents: ['*'], [field]: value });
      expectErrorEnvelope(res, 400, 'validation_error', 'FIELD_NOT_ALLOWED');
      expect(res.body.errors).toEqual([
        { field, code: 'field_not_allowed', message: expect.stringMatching(why) },
      ]);
    });

    it.each<[string, unknown, [string, string][], RegExp]>([
      ['an object', { a: 1 }, [['enabledEvents', 'invalid_type']], /^must be an array$/],
      ['a string', 'plan.*', [['enabledEvents', 'invalid_type']], /^must be an array$/],
      ['null', null, [['enabledEvents', 'invalid_type']], /^may not be null$/],
      [
        'an unknown type',
        ['foo.bar'],
        [['enabledEvents[0]', 'invalid_value']],
        /^must be an event/,
      ],
      [
        'several problems',
        ['*', 5, 'foo.bar', '*', null, ['plan.*']],
        [
          ['enabledEvents[1]', 'invalid_type'],
          ['enabledEvents[2]', 'invalid_value'],
          ['enabledEvents[3]', 'duplicate_item'],
          ['enabledEvents[4]', 'invalid_type'],
          ['enabledEvents[5]', 'invalid_type'],
        ],
        /^must be a string$/,
      ],
    ])('enabledEvents as %s: each problem names its element', async (_l, value, fields, first) => {
      const created = await create(acme.live.auth);
      for (const req of [
        t.http().post('/v0/webhookEndpoints').send({ url: PUBLIC_URL, enabledEvents: value }),
        t.http().patch(`/v0/webhookEndpoints/${created.id}`).send({ enabledEvents: value }),
      ]) {
        const res = await req.set(acme.live.auth);
        expectErrorEnvelope(res, 400, 'validation_error');
        const problems = res.body.errors.map((e: any) => [e.field, e.code]);
        expect(problems).toEqual(fields);
        expect(res.body.errors[0].message).toMatch(first);
      }
    });

    it.each([
      ['http://93.184.216.34/hooks', 'https://'],
      ['https://127.0.0.1/hooks', 'internal'],
      ['https://10.1.2.3/hooks', 'internal'],
      ['https://192.168.0.10/hooks', 'internal'],
      ['https://169.254.169.254/latest/meta-data', 'internal'],
      ['https://[::1]/hooks', 'internal'],
      ['https://[fd00::1]/hooks', 'internal'],
      ['https://2130706433/hooks', 'internal'],
      ['https://localhost/hooks', 'internal'],
      ['https://user:pw@93.184.216.34/hooks', 'password'],
      ['https://:@93.184.216.34/hooks', 'password'],
      ['https://@93.184.216.34/hooks', 'password'],
      ['https://[::127.0.0.1]/hooks', 'internal'],
      ['https://[::a00:1]/hooks', 'internal'],
      ['https://[::5db8:d822]/hooks', 'internal'],
      [' https://93.184.216.34/hooks', 'white space'],
      ['https://93.184.216.34/hooks\n', 'white space'],
      ['https://93.184.216.34/ho oks', 'white space'],
      ['https://93.184.216.34/ho\toks', 'white space'],
      ['https://93.184.216.34/hooks\u0085', 'control'],
      ['https://93.184.216.34/hooks#', '#'],
      ['https://93.184.216.34/hooks#part', '#'],
      ['https://93.184.216.34\\hooks', 'backslash'],
      ['https:\\\\93.184.216.34/hooks', 'backslash'],
      ['https:/93.184.216.34/hooks', 'https://'],
      ['https:93.184.216.34/hooks', 'https://'],
      ['https:///93.184.216.34/hooks', 'https://'],
      ['https://93.184.216.34:0/hooks', 'port 0'],
      ['https://93.184.216.34:00/hooks', 'port 0'],
    ])('a forged or unsafe URL %j', async (url, why) => {
      const res = await t
        .http()
        .post('/v0/webhookEndpoints')
        .set(acme.live.auth)
        .send({ url, enabledEvents: ['*'] });
      expectErrorEnvelope(res, 400, 'validation_error', 'INVALID_WEBHOOK_URL');
      expect(res.body.errors[0].message).toContain(why);
    });

    it('refuses a URL longer than 2,048 characters as it is called, on POST and PATCH', async () => {
      // 822 characters as sent, 2,422 once "<" and ">" are percent-encoded: the URL called and
      // stored. PostgreSQL's column would have refused it with a 500; SQLite stored it.
      const url = `https://93.184.216.34/${'<>'.repeat(400)}`;
      const tooLong = [
        { field: 'url', code: 'too_long', message: expect.stringContaining('2422') },
      ];
      const post = await t
        .http()
        .post('/v0/webhookEndpoints')
        .set(acme.live.auth)
        .send({ url, enabledEvents: ['*'] });
      expectErrorEnvelope(post, 400, 'validation_error');
      expect(post.body.errors).toEqual(tooLong);
      const created = await create(acme.live.auth);
      const patch = await t
        .http()
        .patch(`/v0/webhookEndpoints/${created.id}`)
        .set(acme.live.auth)
        .send({ url: `https://93.184.216.34/${'é'.repeat(400)}` });
      expectErrorEnvelope(patch, 400, 'validation_error');
      expect(patch.body.errors).toEqual([
        { field: 'url', code: 'too_long', message: expect.stringContaining('2422') },
      ]);
      const read = await t.http().get(`/v0/webhookEndpoints/${created.id}`).set(acme.live.auth);
      expect(read.body).toEqual({ ...created, secret: undefined });
      // Exactly 2,048 as called is accepted.
      const longest = `https://93.184.216.34/${'a'.repeat(2048 - 'https://93.184.216.34/'.length)}`;
      expect((await create(acme.live.auth, { url: longest })).url).toBe(longest);
    });

    it('stores the URL as it is called', async () => {
      const created = await create(acme.live.auth, {
        url: 'HTTPS://93.184.216.34:443/a/../hooks?x=1',
      });
      expect(created.url).toBe('https://93.184.216.34/hooks?x=1');
      const read = await t.http().get(`/v0/webhookEndpoints/${created.id}`).set(acme.live.auth);
      expect(read.body.url).toBe('https://93.184.216.34/hooks?x=1');
      const noop = await t
        .http()
        .patch(`/v0/webhookEndpoints/${created.id}`)
        .set(acme.live.auth)
        .send({ url: 'https://93.184.216.34:443/hooks?x=1' });
      expect(noop.body).toEqual(read.body);
    });

    it.each([
      'https://93.184.216.34/hooks#',
      'https://[::a00:1]/hooks',
      ' https://93.184.216.34/hooks',
      'https:/93.184.216.34/hooks',
      'https://93.184.216.34:0/hooks',
    ])('the same URL rules on PATCH: %j', async (url) => {
      const created = await create(acme.live.auth);
      const res = await t
        .http()
        .patch(`/v0/webhookEndpoints/${created.id}`)
        .set(acme.live.auth)
        .send({ url });
      expectErrorEnvelope(res, 400, 'validation_error', 'INVALID_WEBHOOK_URL');
      expect(res.body.errors).toEqual([
        { field: 'url', code: 'invalid_webhook_url', message: expect.any(String) },
      ]);
    });

    it('the same URL rules on PATCH, and nothing changes', async () => {
      const created = await create(acme.live.auth);
      const res = await t
        .http()
        .patch(`/v0/webhookEndpoints/${created.id}`)
        .set(acme.live.auth)
        .send({ url: 'https://127.0.0.1/hooks' });
      expectErrorEnvelope(res, 400, 'validation_error', 'INVALID_WEBHOOK_URL');
      const read = await t.http().get(`/v0/webhookEndpoints/${created.id}`).set(acme.live.auth);
      expect(read.body.url).toBe(PUBLIC_URL);
    });

    it.each([
      [{ status: 'paused' }, 'status'],
      [{ status: null }, 'status'],
      [{ livemode: false }, 'livemode'],
      [{ secret: 'whsec_AAAA' }, 'secret'],
      [{ unknown: 1 }, 'unknown'],
    ])('PATCH %j', async (body, field) => {
      const created = await create(acme.live.auth);
      const res = await t
        .http()
        .patch(`/v0/webhookEndpoints/${created.id}`)
        .set(acme.live.auth)
        .send(body);
      expectErrorEnvelope(res, 400, 'validation_error');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it.each(['succeeded=maybe', 'eventId=plan_1', 'limit=0', 'offset=-1'])(
      'GET deliveries?%s',
      async (query) => {
        const created = await create(acme.live.auth);
        const res = await t
          .http()
          .get(`/v0/webhookEndpoints/${created.id}/deliveries?${query}`)
          .set(acme.live.auth);
        expectErrorEnvelope(res, 400, 'validation_error');
      },
    );
  });

  it('answers 404 for a malformed id and 412 for a stale If-Match', async () => {
    expectErrorEnvelope(
      await t.http().get('/v0/webhookEndpoints/nope').set(acme.live.auth),
      404,
      'not_found',
    );
    const created = await create(acme.live.auth);
    const res = await t
      .http()
      .patch(`/v0/webhookEndpoints/${created.id}`)
      .set(acme.live.auth)
      .set('If-Match', '"stale"')
      .send({ description: 'x' });
    expectErrorEnvelope(res, 412, 'precondition_failed');
  });

  it('never writes a secret to the log, to an event, or to a response other than create and rotate', async () => {
    const created = await create(acme.live.auth);
    const rotated = await t
      .http()
      .post(`/v0/webhookEndpoints/${created.id}/rotateSecret`)
      .set(acme.live.auth);
    const secrets = [created.secret, rotated.body.secret].map((s: string) => s.slice(6));
    const responses = [
      await t.http().get(`/v0/webhookEndpoints/${created.id}`).set(acme.live.auth),
      await t.http().get('/v0/webhookEndpoints?limit=100').set(acme.live.auth),
      await t
        .http()
        .patch(`/v0/webhookEndpoints/${created.id}`)
        .set(acme.live.auth)
        .send({ description: 'changed' }),
      await t.http().get('/v0/events?limit=100').set(acme.live.auth),
      await t.http().get(`/v0/webhookEndpoints/${created.id}/deliveries`).set(acme.live.auth),
      await t.http().delete(`/v0/webhookEndpoints/${created.id}`).set(acme.live.auth),
    ];
    const rows = await t.dataSource.query('SELECT * FROM "events"');
    for (const secret of secrets) {
      for (const res of responses) {
        expect(res.text).not.toContain(secret);
        expect(JSON.stringify(res.headers)).not.toContain(secret);
      }
      expect(JSON.stringify(rows)).not.toContain(secret);
      expect(logs.lines.join('\n')).not.toContain(secret);
      // Stored encrypted: the database never holds the secret itself.
      const stored = await t.dataSource.query('SELECT * FROM "webhook_endpoints"');
      expect(JSON.stringify(stored)).not.toContain(secret);
    }
    expect(logs.lines.length).toBeGreaterThan(0);
  });
});
