import { FieldError, ValidationFailedError } from '../common/errors';
import { ID_PREFIXES, isIdOf } from '../common/ids';
import type { Price } from './entities/price.entity';
import { PriceInUseError } from './plans.errors';

/** What the plan rules need to know about one listed price, with its metric's product. */
export type PriceCandidate = Pick<Price, 'id' | 'planId' | 'deletedAt' | 'billableMetricId'> & {
  metricProductId: string;
};

const notFound = (field: string, id: unknown): FieldError => ({
  field,
  code: 'price_not_found',
  message: `no price '${String(id)}' in your organization`,
});

/**
 * The checks that need no database: every entry a string with a price id's shape, and no id
 * twice. Returns the ids in request order; throws a 400 naming each bad `prices[i]`.
 */
export function checkPriceIdList(list: unknown[]): string[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((id, i) => {
    const field = `prices[${i}]`;
    if (typeof id !== 'string') {
      errors.push({ field, code: 'invalid_type', message: 'must be a price id (a string)' });
    } else if (!isIdOf(ID_PREFIXES.price, id)) {
      errors.push(notFound(field, id));
    } else if (seen.has(id)) {
      errors.push({ field, code: 'duplicate_price', message: `lists ${id} a second time` });
    } else {
      seen.add(id);
    }
  });
  if (errors.length > 0) throw new ValidationFailedError(errors);
  return list as string[];
}

/**
 * The rules of a plan's price list (docs/api.md §5.4), once the listed prices are loaded:
 * each exists in the organization, is not deleted, is for a billable metric of the plan's
 * product, no metric appears twice (400 for any of these), and none is in another live plan
 * (409 PRICE_IN_USE). `planId` is the plan being updated (its own prices are fine), or null.
 */
export function assertPricesUsable(
  ids: string[],
  found: ReadonlyMap<string, PriceCandidate>,
  productId: string,
  planId: string | null,
): void {
  const invalid: FieldError[] = [];
  const inUse: FieldError[] = [];
  const metrics = new Map<string, number>();
  ids.forEach((id, i) => {
    const field = `prices[${i}]`;
    const price = found.get(id);
    if (!price) {
      invalid.push(notFound(field, id));
    } else if (price.deletedAt) {
      invalid.push({ field, code: 'price_deleted', message: `${id} was deleted` });
    } else if (price.metricProductId !== productId) {
      invalid.push({
        field,
        code: 'billable_metric_not_in_product',
        message: `${id} is for billable metric ${price.billableMetricId}, which is not a metric of product ${productId}`,
      });
    } else if (metrics.has(price.billableMetricId)) {
      invalid.push({
        field,
        code: 'duplicate_billable_metric',
        message: `${id} is for billable metric ${price.billableMetricId}, already priced by prices[${metrics.get(price.billableMetricId)}]`,
      });
    } else {
      metrics.set(price.billableMetricId, i);
      if (price.planId !== null && price.planId !== planId) {
        inUse.push({ field, code: 'price_in_use', message: `${id} is in plan ${price.planId}` });
      }
    }
  });
  if (invalid.length > 0) throw new ValidationFailedError(invalid);
  if (inUse.length > 0) {
    throw new PriceInUseError(
      'A price can be in only one live plan; remove it from its plan first or create a new price',
      inUse,
    );
  }
}
