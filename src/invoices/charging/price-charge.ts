import { Decimal } from './money';

/**
 * What a price charges for the usage of one period (docs/api.md §5.12), exactly, before the one
 * rounding of its line. The properties are those a price was created with (§5.3), already valid:
 * every amount a decimal string.
 */
export type ChargedPrice =
  | { model: 'standard'; properties: { unitPrice: string } }
  | { model: 'package'; properties: { packageSize: string; packagePrice: string } }
  | {
      model: 'graduated';
      properties: { tiers: { upTo: string | null; unitPrice: string; flatPrice?: string }[] };
    }
  | {
      model: 'volume';
      properties: {
        default: string;
        parameters: { function: 'linear'; gradient: string; min: string; max: string };
      };
    }
  | {
      model: 'percentage';
      properties: { percentage: string; minCharge: string; maxCharge: string };
    }
  | { model: 'dynamic'; properties: { minPrice: string; maxPrice: string } };

/**
 * The usage a price charges for: the quantity (its metric's aggregation over the period, §5.11)
 * and, for `dynamic`, the sums that model needs (the usage module's DynamicUsage): `amount`,
 * Σ value × the event's own `data.unitPrice` over the events that carry one, and
 * `valueWithoutUnitPrice`, Σ value over those that do not (they count at minPrice).
 */
export interface PeriodUsage {
  quantity: string;
  dynamic?: { amount: string; valueWithoutUnitPrice: string };
}

function clamp(value: Decimal, min: Decimal, max: Decimal): Decimal {
  return Decimal.min(Decimal.max(value, min), max);
}

/** The exact charge of `price` for `usage`: not rounded (the line rounds it once). */
export function chargeFor(price: ChargedPrice, usage: PeriodUsage): Decimal {
  const q = new Decimal(usage.quantity);
  switch (price.model) {
    case 'standard':
      return q.times(price.properties.unitPrice);
    case 'package': {
      const { packageSize, packagePrice } = price.properties;
      return q.div(packageSize).ceil().times(packagePrice);
    }
    case 'graduated':
      return graduatedCharge(price.properties.tiers, q);
    case 'volume': {
      const p = price.properties;
      const unit = new Decimal(p.default).minus(q.times(p.parameters.gradient));
      return q.times(clamp(unit, new Decimal(p.parameters.min), new Decimal(p.parameters.max)));
    }
    case 'percentage': {
      const p = price.properties;
      return clamp(q.times(p.percentage), new Decimal(p.minCharge), new Decimal(p.maxCharge));
    }
    case 'dynamic': {
      // The sum is kept within [minPrice, maxPrice], as percentage's within its charges.
      const { minPrice, maxPrice } = price.properties;
      const dynamic = usage.dynamic ?? { amount: '0', valueWithoutUnitPrice: usage.quantity };
      const sum = new Decimal(dynamic.amount).plus(
        new Decimal(dynamic.valueWithoutUnitPrice).times(minPrice),
      );
      return clamp(sum, new Decimal(minPrice), new Decimal(maxPrice));
    }
  }
}

/**
 * Each tier charges its unitPrice for the units of q above the previous tier's `upTo` and up to
 * its own, plus its flatPrice when q reaches into it (q above the previous `upTo`; for the first
 * tier, q above 0).
 */
function graduatedCharge(
  tiers: { upTo: string | null; unitPrice: string; flatPrice?: string }[],
  q: Decimal,
): Decimal {
  let total = new Decimal(0);
  let lower = new Decimal(0);
  for (const tier of tiers) {
    if (!q.greaterThan(lower)) break;
    const upper = tier.upTo === null ? q : Decimal.min(q, tier.upTo);
    total = total.plus(upper.minus(lower).times(tier.unitPrice)).plus(tier.flatPrice ?? '0');
    if (tier.upTo === null) break;
    lower = new Decimal(tier.upTo);
  }
  return total;
}

/**
 * The fixed fee for the part [billedStart, billedEnd) of the period [periodStart, periodEnd),
 * prorated by milliseconds: fixedFee × billed / whole, exactly (a whole period is fixedFee).
 */
export function proratedFixedFee(
  fixedFee: string,
  period: { start: Date; end: Date },
  billed: { start: Date; end: Date },
): Decimal {
  const whole = period.end.getTime() - period.start.getTime();
  const part = billed.end.getTime() - billed.start.getTime();
  if (part === whole) return new Decimal(fixedFee);
  return new Decimal(fixedFee).times(part).div(whole);
}

/** The `dynamic` part of a period's usage from its events: (value, the event's unitPrice or null). */
export function dynamicUsage(events: Iterable<{ value: string; unitPrice: string | null }>): {
  amount: string;
  valueWithoutUnitPrice: string;
} {
  let amount = new Decimal(0);
  let without = new Decimal(0);
  for (const event of events) {
    if (event.unitPrice === null) without = without.plus(event.value);
    else amount = amount.plus(new Decimal(event.value).times(event.unitPrice));
  }
  return { amount: amount.toFixed(), valueWithoutUnitPrice: without.toFixed() };
}
