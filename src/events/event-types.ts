/**
 * Every event type (docs/api.md §5.6), by the resource it is about. A type stays here as long as
 * events of it may be stored, even once nothing records it: a `prefix.*` list reads the types
 * listed here (typesOfPrefix).
 */
export const EVENT_TYPES = [
  'product.created',
  'product.updated',
  'billableMetric.created',
  'billableMetric.updated',
  'price.created',
  'price.updated',
  'price.deleted',
  'plan.created',
  'plan.updated',
  'plan.deleted',
  'externalBankAccount.created',
  'externalBankAccount.updated',
  'externalBankAccount.deleted',
  'externalBankAccount.verified',
  'externalBankAccount.errored',
  'webhookEndpoint.created',
  'webhookEndpoint.updated',
  'webhookEndpoint.deleted',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'subscription.created',
  'subscription.updated',
  'subscription.started',
  'subscription.terminated',
  'invoice.created',
  'invoice.issued',
  'invoice.paid',
  'invoice.voided',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The resource an event type is about: the part before the dot (`plan` for `plan.updated`). */
export function resourceOf(type: string): string {
  return type.slice(0, type.indexOf('.'));
}

/** `plan.*` for each resource: the prefixes a filter or an endpoint may name. */
export const EVENT_PREFIXES = [...new Set(EVENT_TYPES.map((t) => `${resourceOf(t)}.*`))];

const TYPES_BY_PREFIX = new Map<string, EventType[]>(
  EVENT_PREFIXES.map((p) => [p, EVENT_TYPES.filter((t) => `${resourceOf(t)}.*` === p)]),
);

/**
 * The types that a prefix such as `plan.*` selects, in the order of EVENT_TYPES; none for a
 * string that is not one of EVENT_PREFIXES. At most five (`externalBankAccount.*`).
 */
export function typesOfPrefix(prefix: string): readonly EventType[] {
  return TYPES_BY_PREFIX.get(prefix) ?? [];
}

/**
 * True when `type` is selected by one of `selectors`: event types, prefixes such as `plan.*`, or
 * `*` (webhook endpoints' enabledEvents).
 */
export function selects(selectors: readonly string[], type: string): boolean {
  const prefix = `${resourceOf(type)}.*`;
  return selectors.some((s) => s === '*' || s === type || s === prefix);
}
