import { EventsService } from './events.service';
import { EVENT_PREFIXES, resourceOf, selects, typesOfPrefix } from './event-types';

describe('event selectors', () => {
  it('select by exact type, by prefix and by *', () => {
    expect(selects(['plan.updated'], 'plan.updated')).toBe(true);
    expect(selects(['plan.updated'], 'plan.created')).toBe(false);
    expect(selects(['plan.*'], 'plan.deleted')).toBe(true);
    expect(selects(['plan.*'], 'price.updated')).toBe(false);
    expect(selects(['price.*', 'plan.created'], 'plan.created')).toBe(true);
    expect(selects(['*'], 'webhookEndpoint.deleted')).toBe(true);
    expect(selects([], 'plan.created')).toBe(false);
  });

  it('know one prefix per resource', () => {
    expect(resourceOf('externalBankAccount.verified')).toBe('externalBankAccount');
    expect(EVENT_PREFIXES).toEqual([
      'product.*',
      'billableMetric.*',
      'price.*',
      'plan.*',
      'externalBankAccount.*',
      'webhookEndpoint.*',
      'customer.*',
      'subscription.*',
      'invoice.*',
    ]);
  });

  it('list the types of each prefix (the prefix list reads one index search per type)', () => {
    expect(typesOfPrefix('plan.*')).toEqual(['plan.created', 'plan.updated', 'plan.deleted']);
    for (const prefix of EVENT_PREFIXES) {
      expect(typesOfPrefix(prefix).length).toBeGreaterThan(0);
      expect(typesOfPrefix(prefix).length).toBeLessThanOrEqual(5);
      for (const type of typesOfPrefix(prefix)) expect(selects([prefix], type)).toBe(true);
    }
    expect(typesOfPrefix('nothing.*')).toEqual([]);
    expect(typesOfPrefix('plan')).toEqual([]);
  });
});

describe('EventsService.changes (previousAttributes)', () => {
  const before = {
    id: 'plan_1',
    name: 'Old',
    tax: { rate: '0', code: null },
    prices: ['price_1'],
    description: null,
    updatedAt: '2026-01-01T00:00:00.000Z',
  };

  it('holds the old value of each changed field, deep values compared by value', () => {
    const after = {
      ...before,
      name: 'New',
      tax: { rate: '5', code: null },
      prices: ['price_1', 'price_2'],
      description: 'Now described',
      updatedAt: '2026-01-02T00:00:00.000Z',
    };
    expect(EventsService.changes(before, after)).toEqual({
      name: 'Old',
      tax: { rate: '0', code: null },
      prices: ['price_1'],
      description: null,
    });
  });

  it('is null when only updatedAt moved, or nothing did: a no-op records no event', () => {
    expect(EventsService.changes(before, { ...before })).toBeNull();
    expect(EventsService.changes(before, { ...before, tax: { rate: '0', code: null } })).toBeNull();
    expect(EventsService.changes(before, { ...before, updatedAt: 'later' })).toBeNull();
  });

  it('never carries a secret', () => {
    expect(EventsService.changes({ secret: 'a' }, { secret: 'b' })).toBeNull();
  });
});
