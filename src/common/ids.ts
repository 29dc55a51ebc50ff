import { monotonicFactory } from 'ulid';

/** Every identifier prefix the API hands out (API.md section 1). */
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
} as const;

export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES];

// ULIDs: 48 bits of time and 80 random bits in Crockford base32, so ids sort by creation time and
// a later id never sorts before an earlier one made in the same process.
const ulid = monotonicFactory();

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

const ID_BODY = /^[0-9A-Za-z]{16,40}$/;

/** True when `value` has the shape of an id with this prefix (it may still not exist). */
export function isIdOf(prefix: IdPrefix, value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.startsWith(`${prefix}_`) &&
    ID_BODY.test(value.slice(prefix.length + 1))
  );
}
