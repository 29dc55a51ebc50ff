import { gzipSync } from 'node:zlib';
import { TestTenant } from '../helpers/test-app';
import { TEST_DIALECT } from '../helpers/test-database';
import { ListeningApp, startListeningApp } from '../helpers/reliability/fixtures';
import { exchange, expectRawEnvelope } from '../helpers/raw-http';

/**
 * Issue 17, finding 7: requests that fail before routing (Node's HTTP parser) and bodies in a
 * charset other than UTF-8 answer in the envelope of docs/api.md §3, with a request id and
 * the security headers, over a real socket.
 */
describe(`requests refused before routing (${TEST_DIALECT})`, () => {
  let l: ListeningApp;
  let port: number;
  let tenant: TestTenant;

  beforeAll(async () => {
    l = await startListeningApp();
    port = Number(new URL(l.client.baseUrl).port);
    tenant = await l.t.createTenant();
  });
  afterAll(() => l.t.close());

  const products = async () =>
    (await l.t.http().get('/v0/products?limit=100').set(tenant.auth).expect(200)).body.pagination
      .total as number;

  function post(body: Buffer | string, contentType: string, extra = ''): Buffer {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
    return Buffer.concat([
      Buffer.from(
        `POST /v0/products HTTP/1.1\r\nHost: localhost\r\n${tenant.auth.Authorization ? `Authorization: ${tenant.auth.Authorization}\r\n` : ''}` +
          `Content-Type: ${contentType}\r\nContent-Length: ${bytes.length}\r\n${extra}Connection: close\r\n\r\n`,
      ),
      bytes,
    ]);
  }

  describe('Node parser errors', () => {
    it.each([
      ['a malformed request line', 'GARBAGE\r\n\r\n', 400, 'validation_error', 'MALFORMED_REQUEST'],
      [
        'a request line with an unknown version',
        'GET /healthz HTTP/1.x\r\nHost: x\r\n\r\n',
        400,
        'validation_error',
        'MALFORMED_REQUEST',
      ],
      [
        'a DEL byte in a header value',
        'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Test: a\x7fb\r\n\r\n',
        400,
        'validation_error',
        'MALFORMED_REQUEST',
      ],
      [
        'a control character in a header name',
        'GET /healthz HTTP/1.1\r\nHost: x\r\nX-\x01Test: a\r\n\r\n',
        400,
        'validation_error',
        'MALFORMED_REQUEST',
      ],
      [
        'headers larger than 16 KB',
        `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        431,
        'headers_too_large',
        'HEADERS_TOO_LARGE',
      ],
      [
        'Content-Length beside Transfer-Encoding',
        'POST /v0/products HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n',
        400,
        'validation_error',
        'INVALID_CONTENT_LENGTH',
      ],
      [
        'a Content-Length that is not a number',
        'POST /v0/products HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1x\r\n\r\n{}',
        400,
        'validation_error',
        'INVALID_CONTENT_LENGTH',
      ],
      [
        'a chunked body that is not chunked encoding',
        'POST /v0/products HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
        400,
        'validation_error',
        'MALFORMED_REQUEST',
      ],
    ])('answers %s in the envelope and closes', async (_what, data, status, error, code) => {
      const { responses, closed } = await exchange(port, data);
      expect(responses).toHaveLength(1);
      expectRawEnvelope(responses[0], status, error, code);
      expect(responses[0].headers.connection).toBe('close');
      expect(closed).toBe(true);
    });

    it.each(['/v0/plans/plan_%zz', `/v0/plans/plan_${'A'.repeat(1500)}`])(
      'answers a path the router refuses (%#) with the security headers too',
      async (path) => {
        const { responses } = await exchange(
          port,
          `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        );
        expectRawEnvelope(responses[0], 404, 'not_found', 'RESOURCE_NOT_FOUND');
      },
    );

    it('answers an HTTP/1.1 request without Host in the envelope', async () => {
      const { responses } = await exchange(
        port,
        'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n',
      );
      expectRawEnvelope(responses[0], 400, 'validation_error', 'MALFORMED_REQUEST');
    });

    it('serves a request whose Expect it does not know instead of a bare 417', async () => {
      const { responses } = await exchange(
        port,
        'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nConnection: close\r\n\r\n',
      );
      expect(responses[0].status).toBe(200);
      expect(responses[0].body).toEqual({ status: 'ok' });
    });

    it('answers a body shorter than its Content-Length, cut by the client, in the envelope', async () => {
      const before = await products();
      const { responses } = await exchange(
        port,
        post('{"name":"short"}', 'application/json').subarray(0, -5),
        { halfClose: true },
      );
      expectRawEnvelope(responses[0], 400, 'validation_error', 'INVALID_CONTENT_LENGTH');
      expect(await products()).toBe(before);
    });

    it('answers the request, then the bytes after its Content-Length in the envelope', async () => {
      const { responses, closed } = await exchange(
        port,
        'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}NOT HTTP AT ALL\r\n\r\n',
      );
      expect(responses.map((r) => r.status)).toEqual([200, 400]);
      expectRawEnvelope(responses[1], 400, 'validation_error', 'MALFORMED_REQUEST');
      expect(responses[1].body.requestId).not.toBe(responses[0].headers['x-request-id']);
      expect(closed).toBe(true);
    });

    it.each([
      ['CONNECT', 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n'],
      ['an unknown method', 'FROB /v0/plans HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['a method Node knows but no route takes', 'PROPFIND /v0/plans HTTP/1.1\r\nHost: x\r\n\r\n'],
    ])('answers %s 405 in the envelope, with Allow, and logs it', async (_what, data) => {
      const before = l.logs.length;
      const { responses } = await exchange(port, data);
      expect(responses).toHaveLength(1);
      expectRawEnvelope(responses[0], 405, 'method_not_allowed');
      expect(responses[0].headers.allow).toEqual(expect.stringContaining('GET'));
      await new Promise((resolve) => setImmediate(resolve));
      const logged = l.logs
        .slice(before)
        .map((line) => JSON.parse(line))
        .filter((line) => (line.reqId ?? line.req?.id) === responses[0].headers['x-request-id']);
      expect(logged).not.toEqual([]);
    });

    it('never logs the bytes of a refused request (they may hold a key)', async () => {
      const key = tenant.apiKey;
      await exchange(
        port,
        `GET /v0/products?k=${key} HTTP/1.1\r\nHost: x\r\nX-Bad: \x7f\r\nAuthorization: Bearer ${key}\r\n\r\n`,
      );
      const refused = l.logs.filter((line) => line.includes('request refused before routing'));
      expect(refused.length).toBeGreaterThan(0);
      expect(l.logs.join('\n')).not.toContain(key);
    });
  });

  describe('charsets', () => {
    it.each(['iso-8859-1', 'ISO-8859-1', 'latin1', 'utf-16', '"windows-1252"'])(
      'refuses a body declared charset=%s with 415, storing nothing',
      async (charset) => {
        const before = await products();
        const body = Buffer.concat([
          Buffer.from('{"name":"caf'),
          Buffer.from([0xe9]),
          Buffer.from('"}'),
        ]);
        const { responses } = await exchange(
          port,
          post(body, `application/json; charset=${charset}`),
        );
        expectRawEnvelope(responses[0], 415, 'unsupported_media_type', 'UNSUPPORTED_MEDIA_TYPE');
        expect(await products()).toBe(before);
      },
    );

    it.each([
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=UTF-8',
      'application/json;charset="Utf-8"',
      'application/json; charset=utf8',
    ])('stores a UTF-8 body sent as %s exactly', async (contentType) => {
      const { responses } = await exchange(port, post('{"name":"café ☕ 𝄞"}', contentType));
      expect(responses[0].status).toBe(201);
      expect(responses[0].body.name).toBe('café ☕ 𝄞');
      const stored = await l.t.http().get(`/v0/products/${responses[0].body.id}`).set(tenant.auth);
      expect(stored.body.name).toBe('café ☕ 𝄞');
    });

    it('refuses bytes that are not UTF-8 with 400 instead of storing U+FFFD', async () => {
      const before = await products();
      const body = Buffer.concat([
        Buffer.from('{"name":"caf'),
        Buffer.from([0xe9]),
        Buffer.from('"}'),
      ]);
      const { responses } = await exchange(port, post(body, 'application/json'));
      expectRawEnvelope(responses[0], 400, 'validation_error', 'MALFORMED_JSON');
      expect(responses[0].body.message).toContain('UTF-8');
      expect(await products()).toBe(before);
    });
  });

  describe('headers that make the body ambiguous', () => {
    it.each([
      ['gzip, with a gzip body', 'gzip', gzipSync('{"name":"gz"}')],
      ['gzip, with a plain body', 'gzip', Buffer.from('{"name":"gz"}')],
      ['br', 'br', Buffer.from('{"name":"br"}')],
      ['deflate', 'Deflate', Buffer.from('{"name":"deflate"}')],
      ['two codings', 'gzip, identity', Buffer.from('{"name":"two"}')],
    ])('refuses Content-Encoding: %s with 415, storing nothing', async (_, coding, body) => {
      const before = await products();
      const { responses } = await exchange(
        port,
        post(body, 'application/json', `Content-Encoding: ${coding}\r\n`),
      );
      expectRawEnvelope(responses[0], 415, 'unsupported_media_type', 'UNSUPPORTED_MEDIA_TYPE');
      expect(responses[0].body.message).toContain('Content-Encoding');
      expect(await products()).toBe(before);
    });

    it('takes Content-Encoding: identity as no coding', async () => {
      const { responses } = await exchange(
        port,
        post('{"name":"identity"}', 'application/json', 'Content-Encoding: identity\r\n'),
      );
      expect(responses[0].status).toBe(201);
      expect(responses[0].body.name).toBe('identity');
    });

    it.each([
      ['application/json, then text/plain', 'application/json', 'text/plain'],
      ['text/plain, then application/json', 'text/plain', 'application/json'],
      ['application/json twice', 'application/json', 'application/json'],
    ])('refuses Content-Type sent twice (%s) with 415, in either order', async (_, one, two) => {
      const before = await products();
      const { responses } = await exchange(
        port,
        post('{"name":"twice"}', one, `Content-Type: ${two}\r\n`),
      );
      expectRawEnvelope(responses[0], 415, 'unsupported_media_type');
      expect(await products()).toBe(before);
    });

    it('refuses a Content-Type naming two charsets with 415', async () => {
      const before = await products();
      const { responses } = await exchange(
        port,
        post('{"name":"two"}', 'application/json; charset=utf-8; charset=latin1'),
      );
      expectRawEnvelope(responses[0], 415, 'unsupported_media_type', 'UNSUPPORTED_MEDIA_TYPE');
      expect(await products()).toBe(before);
    });
  });
});
