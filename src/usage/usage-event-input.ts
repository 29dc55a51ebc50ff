import { FieldError } from '../common/errors';
import { InexactNumber } from '../common/json-numbers';

/** docs/api.md §5.11: a request holds 1 to 1,000 events. */
export const MAX_EVENTS_PER_REQUEST = 1000;
/** `data` is at most 4 KB, counted in UTF-8 bytes of its JSON (docs/decisions.md, usage). */
export const MAX_DATA_BYTES = 4096;
/** `data` nests objects and arrays at most 8 levels deep, `data` itself being the first. */
export const MAX_DATA_NESTING = 8;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const MAX_TYPE_LENGTH = 100;
export const MAX_EXTERNAL_ID_LENGTH = 200;

const TYPE_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/;
/** ISO 8601 in UTC with a `Z`, to the second or the millisecond: what every instant here looks like. */
const TIMESTAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,3})?Z$/;
const EVENT_FIELDS = new Set([
  'idempotencyKey',
  'type',
  'customerId',
  'externalCustomerId',
  'timestamp',
  'data',
]);

/** How an event names its customer: by id or by the merchant's own id (docs/api.md §5.8). */
export interface CustomerReference {
  customerId?: string;
  externalCustomerId?: string;
}

/** One event of a request, well formed on its own (its customer and value are checked later). */
export interface UsageEventInput {
  /** Its place in the request, for error paths (`events[417]`). */
  index: number;
  idempotencyKey: string;
  type: string;
  customer: CustomerReference;
  /** null: now on the customer's clock. */
  timestamp: Date | null;
  data: Record<string, unknown>;
}

export interface ReadEvents {
  events: UsageEventInput[];
  errors: FieldError[];
}

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof InexactNumber);

/** The instant of an ISO 8601 UTC string with `Z`, or undefined (a 30 February is refused). */
export function parseUtcTimestamp(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const m = TIMESTAMP_PATTERN.exec(value);
  if (!m) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return undefined;
  // Date.parse rolls 2027-02-30 over to March: the fields must come back as written.
  if (
    date.getUTCFullYear() !== Number(m[1]) ||
    date.getUTCMonth() + 1 !== Number(m[2]) ||
    date.getUTCDate() !== Number(m[3]) ||
    date.getUTCHours() !== Number(m[4])
  ) {
    return undefined;
  }
  return date;
}

/**
 * The first problem inside `data`, walked without recursion: a number JSON cannot carry exactly,
 * or nesting deeper than MAX_DATA_NESTING. Returns its path under `data`, or undefined.
 */
function dataProblem(data: Record<string, unknown>): FieldError | undefined {
  const pending: { value: unknown; depth: number; path: string }[] = [
    { value: data, depth: 1, path: '' },
  ];
  while (pending.length > 0) {
    const { value, depth, path } = pending.pop()!;
    if (value instanceof InexactNumber) {
      return {
        field: path,
        code: 'inexact_number',
        message: 'is a number JSON cannot carry exactly; send it as a string',
      };
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_DATA_NESTING) {
      return {
        field: path,
        code: 'too_deep',
        message: `nests deeper than ${MAX_DATA_NESTING} levels of objects and arrays`,
      };
    }
    const array = Array.isArray(value);
    for (const [key, child] of Object.entries(value)) {
      pending.push({
        value: child,
        depth: depth + 1,
        path: array ? `${path}[${key}]` : `${path}.${key}`,
      });
    }
  }
  return undefined;
}

/** The problems of one event (its fields in a fixed order), pushed on `errors`. */
function readEvent(raw: unknown, index: number, errors: FieldError[]): UsageEventInput | undefined {
  const at = `events[${index}]`;
  if (!isPlainObject(raw)) {
    errors.push({ field: at, code: 'invalid_type', message: 'must be an object' });
    return undefined;
  }
  const before = errors.length;
  const problem = (field: string, code: string, message: string) =>
    errors.push({ field: `${at}.${field}`, code, message });

  for (const key of Object.keys(raw)) {
    if (!EVENT_FIELDS.has(key)) problem(key, 'unknown_field', 'is not a field of a usage event');
  }

  const { idempotencyKey, type, customerId, externalCustomerId, timestamp } = raw;
  if (idempotencyKey === undefined) problem('idempotencyKey', 'required', 'is required');
  else if (typeof idempotencyKey !== 'string')
    problem('idempotencyKey', 'invalid_type', 'must be a string');
  else if (idempotencyKey.length === 0 || codePoints(idempotencyKey) > MAX_IDEMPOTENCY_KEY_LENGTH) {
    problem('idempotencyKey', 'invalid_length', 'must be 1 to 255 characters');
  }

  if (type === undefined) problem('type', 'required', 'is required');
  else if (typeof type !== 'string') problem('type', 'invalid_type', 'must be a string');
  else if (!TYPE_PATTERN.test(type)) {
    problem(
      'type',
      'invalid_format',
      'must be 1 to 100 characters of A-Z, a-z, 0-9, ".", "_", ":" and "-"',
    );
  }

  let customer: CustomerReference | undefined;
  if (customerId !== undefined && externalCustomerId !== undefined) {
    problem(
      'externalCustomerId',
      'field_not_allowed',
      'cannot be sent with customerId: send one of the two',
    );
  } else if (customerId === undefined && externalCustomerId === undefined) {
    problem('customerId', 'required', 'is required (or externalCustomerId)');
  } else if (customerId !== undefined) {
    if (typeof customerId !== 'string') problem('customerId', 'invalid_type', 'must be a string');
    // A string of another shape names no customer: the service answers CUSTOMER_NOT_FOUND.
    else customer = { customerId };
  } else if (typeof externalCustomerId !== 'string') {
    problem('externalCustomerId', 'invalid_type', 'must be a string');
  } else if (
    externalCustomerId.length === 0 ||
    codePoints(externalCustomerId) > MAX_EXTERNAL_ID_LENGTH
  ) {
    problem('externalCustomerId', 'invalid_length', 'must be 1 to 200 characters');
  } else {
    customer = { externalCustomerId };
  }

  let instant: Date | null = null;
  if (timestamp !== undefined) {
    const parsed = parseUtcTimestamp(timestamp);
    if (parsed === undefined) {
      problem(
        'timestamp',
        typeof timestamp === 'string' ? 'invalid_timestamp' : 'invalid_type',
        'must be an ISO 8601 instant in UTC ending in Z, such as "2026-01-31T12:00:00.000Z"',
      );
    } else {
      instant = parsed;
    }
  }

  let data: Record<string, unknown> = {};
  if (raw.data !== undefined) {
    if (!isPlainObject(raw.data)) {
      problem('data', 'invalid_type', 'must be a JSON object');
    } else {
      data = raw.data;
      const inner = dataProblem(data);
      if (inner) {
        problem(`data${inner.field}`, inner.code, inner.message);
      } else if (Buffer.byteLength(JSON.stringify(data)) > MAX_DATA_BYTES) {
        problem('data', 'too_large', `must be at most ${MAX_DATA_BYTES} bytes of JSON`);
      }
    }
  }

  if (errors.length > before || customer === undefined) return undefined;
  return {
    index,
    idempotencyKey: idempotencyKey as string,
    type: type as string,
    customer,
    timestamp: instant,
    data,
  };
}

/**
 * The events of a `POST /v0/usageEvents` body, each well formed on its own, and every problem
 * found, named by its path (`events[417].data`). The whole body is read even after a problem,
 * so one answer names them all (the error envelope keeps the first 100).
 */
export function readUsageEvents(body: unknown): ReadEvents {
  const errors: FieldError[] = [];
  if (!isPlainObject(body)) {
    return {
      events: [],
      errors: [{ field: 'body', code: 'invalid_type', message: 'the body must be a JSON object' }],
    };
  }
  for (const key of Object.keys(body)) {
    if (key !== 'events')
      errors.push({ field: key, code: 'unknown_field', message: 'is not a field of this request' });
  }
  const list = body.events;
  if (list === undefined) {
    errors.push({ field: 'events', code: 'required', message: 'is required' });
    return { events: [], errors };
  }
  if (!Array.isArray(list)) {
    errors.push({ field: 'events', code: 'invalid_type', message: 'must be an array' });
    return { events: [], errors };
  }
  if (list.length === 0 || list.length > MAX_EVENTS_PER_REQUEST) {
    errors.push({
      field: 'events',
      code: list.length === 0 ? 'too_few_items' : 'too_many_items',
      message: `must hold 1 to ${MAX_EVENTS_PER_REQUEST} events`,
    });
    return { events: [], errors };
  }
  const events: UsageEventInput[] = [];
  for (let i = 0; i < list.length; i++) {
    const event = readEvent(list[i], i, errors);
    if (event) events.push(event);
  }
  return { events, errors };
}

/** docs/api.md §6: a `POST /v0/usageEvents` body is at most 1 MB (100 KB elsewhere). */
export const MAX_REQUEST_BYTES = 1024 * 1024;
