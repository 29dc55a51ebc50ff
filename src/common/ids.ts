import { encodeTime, monotonicFactory } from 'ulid';

/** Every identifier prefix the API hands out (docs/api.md §1). */
export const ID_PREFIXES = {
  organization: 'org',
  apiKey: 'key',
  product: 'prod',
  billableMetric: 'bm',
  price: 'price',
  plan: 'plan',
  externalBankAccount: 'eba',
  request: 'req',
  idempotencyRecord: 'idem',
  event: 'evt',
  webhookEndpoint: 'we',
  webhookDelivery: 'whd',
  webhookAttempt: 'wha',
  usageEvent: 'uev',
  customer: 'cus',
  testClock: 'clock',
  subscription: 'sub',
  invoice: 'inv',
  invoiceLine: 'il',
} as const;

export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES];

/**
 * How messages name each resource a client reaches by id (`No such billable metric`), keyed as
 * ID_PREFIXES: NotFoundError and the API's documentation name a resource by its key.
 */
export const RESOURCE_NAMES = {
  organization: 'organization',
  apiKey: 'API key',
  product: 'product',
  billableMetric: 'billable metric',
  price: 'price',
  plan: 'plan',
  externalBankAccount: 'external bank account',
  event: 'event',
  webhookEndpoint: 'webhook endpoint',
  usageEvent: 'usage event',
  customer: 'customer',
  testClock: 'test clock',
  subscription: 'subscription',
  invoice: 'invoice',
} as const satisfies Partial<Record<keyof typeof ID_PREFIXES, string>>;

/** A resource a client reaches by id (see RESOURCE_NAMES). */
export type NamedResource = keyof typeof RESOURCE_NAMES;

// ULIDs: 48 bits of time and 80 random bits in Crockford base32, so ids sort by creation time and
// a later id never sorts before an earlier one made in the same process; the random bits come
// from the crypto module (ulid's own source).
const ulid = monotonicFactory();

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

/**
 * A bound that sorts after every id of this prefix made before `time` and before every id made at
 * or after it: the id's time part with no random part. `id < idsMadeBefore(prefix, t)` selects by
 * age through the primary key alone (the retention sweep). Holds for any collation that orders
 * digits before capital letters, as C, ICU and glibc's all do.
 */
export function idsMadeBefore(prefix: IdPrefix, time: Date): string {
  return `${prefix}_${encodeTime(time.getTime(), 10)}`;
}

/** What follows an id's prefix and underscore (docs/api.md §1). */
const ID_BODY_SOURCE = '[0-9A-Za-z]{16,40}';
const ID_BODY = new RegExp(`^${ID_BODY_SOURCE}$`);

/** True when `value` has the shape of an id with this prefix (it may still not exist). */
export function isIdOf(prefix: IdPrefix, value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.startsWith(`${prefix}_`) &&
    ID_BODY.test(value.slice(prefix.length + 1))
  );
}

// The shape isIdOf checks, for every prefix at once.
const ANY_ID = new RegExp(`^(?:${Object.values(ID_PREFIXES).join('|')})_${ID_BODY_SOURCE}$`);

/** True when `value` has the shape of an id of any prefix this API hands out. */
export function isAnyId(value: unknown): value is string {
  return typeof value === 'string' && ANY_ID.test(value);
}
