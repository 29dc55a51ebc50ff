import fc from 'fast-check';

/**
 * Strings that have broken services before: SQL and template fragments, quoting, path tricks,
 * Unicode that changes length or direction, control characters, JSON-looking text. Each is a
 * valid name (1-200 characters, not blank), so a service must store and return it literally.
 */
export const HOSTILE_STRINGS: readonly string[] = [
  "'; DROP TABLE products; --",
  '" OR "1"="1',
  "1' OR '1'='1' /*",
  "Robert'); DELETE FROM plans WHERE ('1'='1",
  '$1 $2 ? :id @p0',
  "E'\\x41' || chr(65)",
  '%s%s%s%n%x',
  '${7*7} #{7*7} {{7*7}} <%= 7*7 %>',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '\\',
  '\\u0000 \\x00 \\0',
  '%00%27%22',
  'Ωmega ünïcödé',
  '日本語のプラン',
  'مرحبا بالعالم',
  '👩‍👩‍👧‍👦 family',
  '🇺🇸🇩🇪',
  'e\u0301 combining',
  '\u202Eevil\u202C right-to-left',
  '\u200B\u200Czero\u200Dwidth',
  '\uFEFFbyte order mark',
  '\u0001\u0002\u0007\b\t\u000b\f\u001b[31mred\u001b[0m\u007f',
  'line1\r\nX-Injected: yes',
  '\u2028\u2029 separators',
  '\u00A0no-break space',
  'ＳＥＬＥＣＴ fullwidth',
  '../../etc/passwd',
  'C:\\Windows\\system32',
  'http://169.254.169.254/latest/meta-data/',
  'null',
  'undefined',
  'true',
  '-0',
  'NaN',
  '[]',
  '{"$gt": ""}',
  ' leading and trailing ',
  'a'.repeat(200),
  '💸'.repeat(200),
  'ä'.repeat(200),
];

/** Keys that are also names of Object.prototype members or otherwise special to JavaScript. */
export const TRICKY_KEYS: readonly string[] = [
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'prototype',
  'length',
  '0',
  '$where',
  'a.b',
  'a[0]',
  ' ',
  'ключ',
  '🔑',
];

/** Any string: ASCII, full Unicode, or a hostile one. */
export const anyString = (maxLength = 60): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ maxLength, unit: 'grapheme' }),
    fc.string({ maxLength, unit: 'binary' }),
    fc.constantFrom(...HOSTILE_STRINGS),
  );

/** A name: usually valid, sometimes empty, blank, too long or hostile. */
export const nameArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => /\S/.test(s)) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 60, unit: 'grapheme' }) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t\n', 'x'.repeat(201), '😀'.repeat(201)) },
);

/** Any JSON value, including deep and odd ones. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, true, 0, -1, 1.5, 1e21, -0, '', [], {}, [null], { a: { b: { c: 1 } } }),
  anyString(),
);

/** A decimal amount: valid, or one of the forms docs/api.md §1 rejects. */
export const decimalArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.stringMatching(/^(0|[1-9][0-9]{0,17})(\.[0-9]{1,12})?$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '1e-5',
      '-1',
      '01',
      ' 1',
      '1.',
      '.5',
      '1.0000000000001',
      '1000000000000000000',
      'NaN',
      'Infinity',
      1.5,
      0,
    ),
  },
);

/** A metadata object: usually valid, sometimes with tricky keys, nesting or too many keys. */
export const metadataArb = (allowNull: boolean): fc.Arbitrary<unknown> =>
  fc.oneof(
    {
      weight: 10,
      arbitrary: fc.dictionary(
        fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom(...TRICKY_KEYS)),
        fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.integer(),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.boolean(),
          fc.constantFrom(...HOSTILE_STRINGS),
          ...(allowNull ? [fc.constant(null)] : []),
        ),
        { maxKeys: 8 },
      ),
    },
    { weight: 1, arbitrary: anyJson },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { nested: { a: 1 } },
        { list: [1, 2] },
        { ['k'.repeat(41)]: 'too long a key' },
        { '': 'empty key' },
        { v: 'x'.repeat(501) },
        Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])),
      ),
    },
  );

/**
 * A body built from `fields` (each arbitrary yields mostly valid values): all fields valid, or
 * one of them replaced by junk or left out, or an unknown field added, or any JSON at all.
 */
export function bodyArb(
  fields: Record<string, fc.Arbitrary<unknown>>,
  required: string[],
  notAllowed: Record<string, fc.Arbitrary<unknown>> = {},
): fc.Arbitrary<unknown> {
  const keys = Object.keys(fields);
  const valid = fc.record(fields, { requiredKeys: required.filter((k) => k in fields) });
  const broken = fc
    .tuple(valid, fc.constantFrom(...keys), fc.option(anyJson, { nil: undefined, freq: 4 }))
    .map(([body, key, junk]) => {
      const copy: Record<string, unknown> = { ...(body as object) };
      if (junk === undefined) delete copy[key];
      else copy[key] = junk;
      return copy;
    });
  const withExtra = fc
    .tuple(
      valid,
      fc.oneof(fc.constantFrom(...TRICKY_KEYS, 'id', 'object', 'createdAt'), fc.string()),
      anyJson,
    )
    .map(([body, key, value]) => ({ ...(body as object), [key]: value }));
  const variants = [
    { weight: 10, arbitrary: valid },
    { weight: 3, arbitrary: broken },
    { weight: 1, arbitrary: withExtra },
    { weight: 1, arbitrary: anyJson },
  ];
  const forbidden = Object.entries(notAllowed);
  if (forbidden.length > 0) {
    // A field of the resource that this request may not set (400 naming it).
    const withForbidden = fc
      .tuple(valid, fc.constantFrom(...forbidden))
      .chain(([body, [key, arb]]) => arb.map((value) => ({ ...(body as object), [key]: value })));
    variants.push({ weight: 1, arbitrary: withForbidden });
  }
  return fc.oneof(...variants);
}

/** Raw bodies that are not a JSON object, or not JSON at all, sent as application/json. */
export const rawBodyArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '{"name":',
    '{"name":"x",}',
    "{'name':'x'}",
    'null',
    '[]',
    '"just a string"',
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{"admin":true}}}',
    '{"name":"x","name":"y"}',
    '\uFEFF{"name":"x"}',
    '{"name":"\\ud800"}',
    '{"name":"\\udfff\\ud800"}',
    '{"name":"x","metadata":' + '['.repeat(5000) + ']'.repeat(5000) + '}',
    '{"name":"x","metadata":' + '{"a":'.repeat(3000) + '1' + '}'.repeat(3000) + '}',
  ),
  fc.string({ maxLength: 40 }),
  fc.json().map((s) => s.slice(0, Math.max(1, s.length - 1))),
);

/** A path segment: an id of the right kind, of another kind or organization, or malformed. */
export function pathIdArb(ids: readonly string[], others: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...ids) },
    { weight: 2, arbitrary: fc.constantFrom(...others) },
    {
      weight: 3,
      arbitrary: fc
        .oneof(
          anyString(40),
          fc.stringMatching(/^[a-z]{2,5}_[0-9A-Za-z]{10,45}$/),
          fc.constantFrom('plan_', 'x', '0', '-1', 'null', '.', '..', 'plan_' + 'A'.repeat(1200)),
        )
        .filter((s) => s.length > 0)
        .map(encodeURIComponent),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('%zz', '%E0%A4%A', '%00', '%2e%2e', 'a%2Fb', '%C0%AF'),
    },
  );
}

/** A query string (with its `?`), from known parameter names and odd ones, encoded or raw. */
export function queryArb(
  names: string[],
  values: fc.Arbitrary<string>,
  emptyWeight = 2,
): fc.Arbitrary<string> {
  const pair = fc.tuple(
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('limit', 'offset', ...names) },
      { weight: 1, arbitrary: fc.constantFrom(...TRICKY_KEYS, '__proto__', 'limit[]', 'a[b]') },
      { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 10 }) },
    ),
    fc.oneof(
      { weight: 3, arbitrary: values },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          '0',
          '1',
          '10',
          '100',
          '101',
          '-1',
          '1.5',
          '1e3',
          '0x10',
          ' 5',
          'true',
          'false',
          '',
        ),
      },
      { weight: 1, arbitrary: anyString(30) },
    ),
  );
  return fc.oneof(
    { weight: emptyWeight, arbitrary: fc.constant('') },
    {
      weight: 6,
      arbitrary: fc
        .array(pair, { minLength: 1, maxLength: 4 })
        .map(
          (pairs) =>
            '?' +
            pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '?',
        '?&&',
        '?=',
        '?limit',
        '?limit=%zz',
        '?%zz=1',
        '?limit=1&limit=2',
        '?a=' + 'x'.repeat(5000),
      ),
    },
  );
}

/** Header values that Node's fetch accepts (no CR, LF or NUL; Latin-1). */
const headerValue = (maxLength: number): fc.Arbitrary<string> =>
  fc
    .string({
      maxLength,
      unit: fc
        .integer({ min: 0x20, max: 0xfe })
        .map((c) => String.fromCharCode(c === 0x7f ? 0xff : c)),
    })
    .map((s) => s.trim());

export interface HeaderChoice {
  /** Which credentials the request carries. */
  auth: 'own' | 'other' | 'none' | 'garbage';
  headers: Record<string, string>;
}

/** Stands for a new random Idempotency-Key (generated values repeat too often to be keys). */
export const FRESH_KEY = '<fresh>';

/** Present with probability 1 in `freq`. */
const sometimes = <T>(arb: fc.Arbitrary<T>, freq: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: freq - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/** The headers of a request: credentials, content type, and the optional API headers. */
export function headersArb(withBody: boolean): fc.Arbitrary<HeaderChoice> {
  return fc
    .record({
      auth: fc.oneof(
        { weight: 12, arbitrary: fc.constant('own' as const) },
        { weight: 1, arbitrary: fc.constant('other' as const) },
        { weight: 1, arbitrary: fc.constant('none' as const) },
        { weight: 1, arbitrary: fc.constant('garbage' as const) },
      ),
      contentType: withBody
        ? fc.oneof(
            { weight: 12, arbitrary: fc.constant('application/json') },
            {
              weight: 1,
              arbitrary: fc.constantFrom(
                'application/json; charset=utf-8',
                'application/JSON',
                'text/plain',
                'application/x-www-form-urlencoded',
                'multipart/form-data; boundary=x',
                'application/json; charset=latin1',
                '',
              ),
            },
          )
        : fc.constant(undefined),
      idempotencyKey: sometimes(
        fc.oneof(
          { weight: 3, arbitrary: fc.constant(FRESH_KEY) },
          { weight: 1, arbitrary: headerValue(300) },
        ),
        4,
      ),
      ifMatch: sometimes(fc.oneof(fc.constant('*'), headerValue(40), fc.constant('"x", W/"y"')), 8),
      ifNoneMatch: sometimes(fc.oneof(fc.constant('*'), headerValue(40)), 8),
      requestId: sometimes(headerValue(140), 6),
      garbage: headerValue(60),
    })
    .map((h) => {
      const headers: Record<string, string> = {};
      if (h.contentType !== undefined) headers['content-type'] = h.contentType;
      if (h.idempotencyKey !== undefined) headers['idempotency-key'] = h.idempotencyKey;
      if (h.ifMatch !== undefined) headers['if-match'] = h.ifMatch;
      if (h.ifNoneMatch !== undefined) headers['if-none-match'] = h.ifNoneMatch;
      if (h.requestId !== undefined) headers['x-request-id'] = h.requestId;
      if (h.auth === 'garbage') headers.authorization = `Bearer ${h.garbage}`;
      return { auth: h.auth, headers };
    });
}
