import { Writable } from 'node:stream';
import { AppConfig } from '../config/app-config';
import { createLogger, holdsSecret, loggableHeader, loggablePath } from './logging';
import { RouteTable } from './route-table';

const KEY = 'sk_live_KfIC0123456789abcdefghijklmnopqr';

function literalsOf(...patterns: string[]): ReadonlySet<string> {
  const table = new RouteTable();
  for (const pattern of patterns) table.add(pattern, 'GET');
  return table.literals;
}

describe('loggablePath', () => {
  const literals = literalsOf(
    '/v0/products/:id',
    '/v0/externalAccounts/:id',
    '/healthz',
    '/docs/*',
  );

  it.each([
    ['a route as it is', '/v0/products', '/v0/products'],
    [
      'a well-formed id',
      '/v0/products/prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC',
      '/v0/products/prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC',
    ],
    [
      'an id of another kind, still well-formed',
      '/v0/products/eba_01JD3Y2Q6J8C4N1V9W5X7Z0ABC',
      '/v0/products/eba_01JD3Y2Q6J8C4N1V9W5X7Z0ABC',
    ],
    ['an API key in place of an id', `/v0/products/${KEY}`, '/v0/products/[redacted]'],
    [
      'an IBAN in place of an id',
      '/v0/externalAccounts/DE89370400440532013000',
      '/v0/externalAccounts/[redacted]',
    ],
    ['a US account number', '/v0/externalAccounts/000123456789', '/v0/externalAccounts/[redacted]'],
    ['an id of a bad shape', '/v0/products/prod_short', '/v0/products/[redacted]'],
    ['a word no route has', '/v0/customers', '/v0/[redacted]'],
    [
      'a route word in another place',
      '/v0/externalAccounts/x/products',
      '/v0/externalAccounts/[redacted]/products',
    ],
    ['a trailing slash and an empty segment', '/v0//products/', '/v0//products/'],
    ['the query string', `/v0/products?access_token=${KEY}`, '/v0/products'],
    ["a wildcard's part", '/docs/swagger-ui.css', '/docs/[redacted]'],
    ['the asterisk form', '*', '[redacted]'],
  ])('keeps %s as shown', (_what, target, logged) => {
    expect(loggablePath(target, literals)).toBe(logged);
  });

  it('reads the target as the router does: no scheme or authority, segments decoded', () => {
    const encodedKey = [...KEY].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    expect(loggablePath(`http://${KEY}@host:3000/v%30/products/${encodedKey}`, literals)).toBe(
      '/v0/products/[redacted]',
    );
    expect(loggablePath('/v0/products/prod_%30%31JD3Y2Q6J8C4N1V9W5X7Z0ABC', literals)).toBe(
      '/v0/products/prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC',
    );
  });

  it('redacts a segment whose decoding fails or holds a slash', () => {
    expect(loggablePath('/v0/products/%zz', literals)).toBe('/v0/products/[redacted]');
    expect(loggablePath('/v0%2Fproducts', literals)).toBe('/[redacted]');
  });

  it('never keeps a parameter or a wildcard of a pattern as a literal', () => {
    expect(loggablePath('/v0/:id/*', literals)).toBe('/v0/[redacted]/[redacted]');
  });
});

describe('loggableHeader', () => {
  it.each([
    [
      'a key inside a user agent',
      `myapp/1.0 key=${KEY} (linux)`,
      'myapp/1.0 key=[redacted] (linux)',
    ],
    ['a test key in capitals', 'curl SK_TEST_ABCDEF0123456789', 'curl [redacted]'],
    ['a webhook secret with base64 characters', 'x whsec_MfKQ9r8+GKY/qr= y', 'x [redacted] y'],
    ['several secrets', `${KEY},${KEY} ${KEY}`, '[redacted] [redacted]'],
    [
      'a value without secrets, as it is',
      'application/json; charset=utf-8',
      'application/json; charset=utf-8',
    ],
    ['a publishable-looking word, as it is', 'sk_other pk_live_x', 'sk_other pk_live_x'],
  ])('redacts %s', (_what, value, logged) => {
    expect(loggableHeader(value)).toBe(logged);
  });

  it('joins a repeated header and leaves an absent one absent', () => {
    expect(loggableHeader(['a', KEY])).toBe('a, [redacted]');
    expect(loggableHeader(undefined)).toBeUndefined();
  });
});

describe('holdsSecret', () => {
  it.each([KEY, 'SK_TEST_x', 'trace.whsec_abc', `abc-${KEY}`])('is true for %s', (value) => {
    expect(holdsSecret(value)).toBe(true);
  });

  it.each(['req_01JD3Y2Q6J8C4N1V9W5X7Z0ABC', 'client-trace.42', 'sk_other', 'whsec'])(
    'is false for %s',
    (value) => {
      expect(holdsSecret(value)).toBe(false);
    },
  );
});

describe('createLogger (LOG_FORMAT)', () => {
  function logged(logFormat: 'json' | 'pretty'): string {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const config = { logLevel: 'info', logFormat } as AppConfig;
    const logger = createLogger(config, destination);
    logger.info({ req: { headers: { authorization: `Bearer ${KEY}` } } }, 'request completed');
    return lines.join('');
  }

  it('writes one JSON object a line by default', () => {
    const line = JSON.parse(logged('json'));
    expect(line).toMatchObject({ level: 30, msg: 'request completed' });
    expect(line.req.headers.authorization).toBe('[redacted]');
  });

  it('writes readable lines with LOG_FORMAT=pretty, redacted alike', () => {
    const text = logged('pretty');
    expect(() => JSON.parse(text)).toThrow();
    expect(text).toMatch(/INFO.*request completed/);
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(KEY);
  });
});
