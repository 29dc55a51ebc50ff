import { ApiError } from '../common/errors';
import { PriceCandidate, assertPricesUsable, checkPriceIdList } from './plan-price-list';

const id = (n: number) => `price_${String(n).padStart(26, '0')}`;
const PRODUCT = 'prod_00000000000000000000000001';
const PLAN = 'plan_00000000000000000000000001';

function candidate(n: number, overrides: Partial<PriceCandidate> = {}): PriceCandidate {
  return {
    id: id(n),
    planId: null,
    deletedAt: null,
    billableMetricId: `bm_${String(n).padStart(26, '0')}`,
    metricProductId: PRODUCT,
    ...overrides,
  };
}

function failure(fn: () => unknown): { status: number; code?: string; fields: string[][] } {
  try {
    fn();
  } catch (err) {
    const e = err as ApiError;
    return {
      status: e.status,
      code: e.code,
      fields: (e.errors ?? []).map((f) => [f.field, f.code]),
    };
  }
  throw new Error('expected a failure');
}

describe('checkPriceIdList', () => {
  it('returns the ids of a well-formed list in order', () => {
    expect(checkPriceIdList([id(2), id(1)])).toEqual([id(2), id(1)]);
    expect(checkPriceIdList([])).toEqual([]);
  });

  it.each<[string, unknown[], string[][]]>([
    ['a number', [id(1), 5], [['prices[1]', 'invalid_type']]],
    ['null', [null], [['prices[0]', 'invalid_type']]],
    ['a wrong prefix', ['plan_00000000000000000000000001'], [['prices[0]', 'price_not_found']]],
    ['a short id', ['price_abc'], [['prices[0]', 'price_not_found']]],
    ['an id twice', [id(1), id(2), id(1)], [['prices[2]', 'duplicate_price']]],
    [
      'several problems at once',
      [1, 'x', id(1), id(1)],
      [
        ['prices[0]', 'invalid_type'],
        ['prices[1]', 'price_not_found'],
        ['prices[3]', 'duplicate_price'],
      ],
    ],
  ])('rejects %s with 400', (_label, list, fields) => {
    expect(failure(() => checkPriceIdList(list))).toMatchObject({ status: 400, fields });
  });
});

describe('assertPricesUsable', () => {
  const found = (...cs: PriceCandidate[]) => new Map(cs.map((c) => [c.id, c]));

  it('accepts free prices of distinct metrics of the product', () => {
    expect(() =>
      assertPricesUsable([id(1), id(2)], found(candidate(1), candidate(2)), PRODUCT, null),
    ).not.toThrow();
  });

  it("accepts prices already in the plan being updated, and refuses them to another plan's create", () => {
    const mine = candidate(1, { planId: PLAN });
    expect(() => assertPricesUsable([id(1)], found(mine), PRODUCT, PLAN)).not.toThrow();
    expect(failure(() => assertPricesUsable([id(1)], found(mine), PRODUCT, null))).toEqual({
      status: 409,
      code: 'PRICE_IN_USE',
      fields: [['prices[0]', 'price_in_use']],
    });
  });

  it.each<[string, string[], PriceCandidate[], string, string[][]]>([
    [
      'an unknown price',
      [id(1), id(9)],
      [candidate(1)],
      'PRICE_NOT_FOUND',
      [['prices[1]', 'price_not_found']],
    ],
    [
      'a deleted price',
      [id(1)],
      [candidate(1, { deletedAt: new Date() })],
      'PRICE_DELETED',
      [['prices[0]', 'price_deleted']],
    ],
    [
      'a price of another product',
      [id(1)],
      [candidate(1, { metricProductId: 'prod_00000000000000000000000002' })],
      'BILLABLE_METRIC_NOT_IN_PRODUCT',
      [['prices[0]', 'billable_metric_not_in_product']],
    ],
    [
      'two prices of one metric',
      [id(1), id(2)],
      [candidate(1), candidate(2, { billableMetricId: candidate(1).billableMetricId })],
      'DUPLICATE_BILLABLE_METRIC',
      [['prices[1]', 'duplicate_billable_metric']],
    ],
  ])('rejects %s with 400', (_label, ids, cs, code, fields) => {
    expect(failure(() => assertPricesUsable(ids, found(...cs), PRODUCT, null))).toEqual({
      status: 400,
      code,
      fields,
    });
  });

  it('reports a 400 before a 409 when a list has both', () => {
    const result = failure(() =>
      assertPricesUsable(
        [id(1), id(2)],
        found(candidate(1, { planId: PLAN }), candidate(2, { deletedAt: new Date() })),
        PRODUCT,
        null,
      ),
    );
    expect(result).toEqual({
      status: 400,
      code: 'PRICE_DELETED',
      fields: [['prices[1]', 'price_deleted']],
    });
  });
});
