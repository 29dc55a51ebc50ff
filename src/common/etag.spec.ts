import { etagOf, etagOfJson } from './etag';

describe('etagOf', () => {
  const view = { id: 'price_1', object: 'price', properties: { unitPrice: '0.25' }, planId: null };

  it('is the tag of the JSON text the view is sent as', () => {
    expect(etagOf(view)).toBe(etagOfJson(JSON.stringify(view)));
    expect(etagOf(view)).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
  });

  it('changes with any value a client could see', () => {
    expect(etagOf({ ...view, planId: 'plan_1' })).not.toBe(etagOf(view));
    expect(etagOf({ ...view, properties: { unitPrice: '0.250' } })).not.toBe(etagOf(view));
  });

  it('is the same for a view read back from its own JSON (what a client holds)', () => {
    const metadata = { '10': 'x', '9': 'y', b: true, a: 1.5 };
    const sent = { ...view, metadata };
    expect(etagOf(JSON.parse(JSON.stringify(sent)))).toBe(etagOf(sent));
  });
});
