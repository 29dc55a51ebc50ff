import { FieldError } from '../common/errors';
import { compareDecimals, fractionDigits, isDecimalString } from '../common/money/decimal';
import type { PRICE_PROPERTIES_MODELS } from './dto/price-properties.dto';

/** Pricing models (docs/api.md §5.3) and the shape of `properties` for each. */
export const PRICE_MODELS = [
  'standard',
  'dynamic',
  'volume',
  'package',
  'graduated',
  'percentage',
] as const;
export type PriceModel = (typeof PRICE_MODELS)[number];

/** The shape of each model's `properties`: the classes that document them (dto/price-properties.dto.ts). */
export type PriceProperties = InstanceType<(typeof PRICE_PROPERTIES_MODELS)[number]>;

/** How every price is billed: usage after the period that measured it (docs/api.md §5.3). */
export const PAYMENT_TERMS = ['in_arrears'] as const;
export type PaymentTerm = (typeof PAYMENT_TERMS)[number];

/** The most tiers a graduated price has. */
export const MAX_TIERS = 20;

/**
 * A leaf is a decimal amount (`positive`: above zero; `fraction`: 0 to 10 with at most 4
 * decimals, a percentage's rate), one of a few literal strings, or the tiers of a graduated
 * price; anything else is a nested object.
 */
type Leaf = 'decimal' | 'positive' | 'fraction' | 'tiers' | readonly string[];
type Shape = { [key: string]: Leaf | Shape };

/** One tier of a graduated price; `upTo` may be null and `flatPrice` defaults to "0" (walkTiers). */
const TIER: Shape = { upTo: 'decimal', unitPrice: 'decimal', flatPrice: 'decimal' };

const SHAPES: Record<PriceModel, Shape> = {
  standard: { unitPrice: 'decimal' },
  dynamic: { minPrice: 'decimal', maxPrice: 'decimal' },
  volume: {
    default: 'decimal',
    parameters: { function: ['linear'], gradient: 'decimal', min: 'decimal', max: 'decimal' },
  },
  package: { packageSize: 'positive', packagePrice: 'decimal' },
  graduated: { tiers: 'tiers' },
  percentage: { percentage: 'fraction', minCharge: 'decimal', maxCharge: 'decimal' },
};

/** The pair of each model whose lower bound must not exceed its upper: paths inside `properties`. */
const ORDERED: Partial<Record<PriceModel, [string, string]>> = {
  dynamic: ['minPrice', 'maxPrice'],
  volume: ['parameters.min', 'parameters.max'],
  percentage: ['minCharge', 'maxCharge'],
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks `value` against `shape`, collecting one error per bad key, and returns a copy with the
 * keys in the shape's order (so a response never depends on how the database stored the JSON).
 */
function walk(
  shape: Shape,
  value: Record<string, unknown>,
  path: string,
  errors: FieldError[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(shape)) {
    const field = `${path}.${key}`;
    const v = value[key];
    if (v === undefined) {
      errors.push({ field, code: 'required', message: 'is required' });
    } else if (v === null) {
      // As for every other field (docs/errors.md): null is the wrong type, whatever the rule.
      errors.push({ field, code: 'invalid_type', message: 'may not be null' });
    } else if (rule === 'tiers') {
      const tiers = walkTiers(v, field, errors);
      if (tiers) out[key] = tiers;
    } else if (rule === 'decimal' || rule === 'positive' || rule === 'fraction') {
      if (!isDecimalString(v)) {
        errors.push({
          field,
          code: 'invalid_decimal',
          message:
            'must be a decimal string such as "0.25" (up to 18 integer and 12 fractional digits)',
        });
      } else if (rule === 'positive' && compareDecimals(v, '0') <= 0) {
        errors.push({ field, code: 'invalid_range', message: 'must be greater than 0' });
      } else if (rule === 'fraction' && (compareDecimals(v, '10') > 0 || fractionDigits(v) > 4)) {
        errors.push({
          field,
          code: 'invalid_range',
          message: 'must be a fraction from 0 to 10 with at most 4 decimals ("0.03" is 3%)',
        });
      } else {
        out[key] = v;
      }
    } else if (Array.isArray(rule)) {
      if (typeof v === 'string' && rule.includes(v)) out[key] = v;
      else
        errors.push({
          field,
          code: 'invalid_value',
          message: `must be one of: ${rule.map((r) => `"${r}"`).join(', ')}`,
        });
    } else if (isPlainObject(v)) {
      out[key] = walk(rule as Shape, v, field, errors);
    } else {
      errors.push({ field, code: 'invalid_type', message: 'must be an object' });
    }
  }
  for (const key of Object.keys(value)) {
    if (!(key in shape)) {
      errors.push({
        field: `${path}.${key}`,
        code: 'unknown_field',
        message: 'is not a property of this price model',
      });
    }
  }
  return out;
}

/**
 * The tiers of a graduated price: 1-20 objects, `upTo` strictly increasing and null on the last
 * tier only, `flatPrice` "0" when left out. Returns undefined when they are not an array.
 */
function walkTiers(value: unknown, path: string, errors: FieldError[]): unknown[] | undefined {
  if (!Array.isArray(value)) {
    errors.push({ field: path, code: 'invalid_type', message: 'must be an array of tiers' });
    return undefined;
  }
  if (value.length < 1 || value.length > MAX_TIERS) {
    errors.push({
      field: path,
      code: 'invalid_length',
      message: `must hold 1 to ${MAX_TIERS} tiers`,
    });
    return undefined;
  }
  let previous: string | null = null;
  return value.map((tier: unknown, index) => {
    const field = `${path}[${index}]`;
    if (!isPlainObject(tier)) {
      errors.push({ field, code: 'invalid_type', message: 'must be an object' });
      return tier;
    }
    const last = index === value.length - 1;
    const { upTo, ...rest }: Record<string, unknown> = { flatPrice: '0', ...tier };
    // walk checks upTo as a decimal (and reports it missing); null is checked here.
    const out = walk(TIER, { ...rest, upTo: upTo === null ? '0' : upTo }, field, errors);
    if (upTo === undefined) return out;
    if (upTo === null) {
      if (!last)
        errors.push({
          field: `${field}.upTo`,
          code: 'invalid_value',
          message: 'may be null only on the last tier',
        });
      out.upTo = null;
    } else if (last) {
      errors.push({
        field: `${field}.upTo`,
        code: 'invalid_value',
        message: 'must be null on the last tier (it holds every unit above the one before)',
      });
    } else if (isDecimalString(upTo) && compareDecimals(upTo, previous ?? '0') <= 0) {
      errors.push({
        field: `${field}.upTo`,
        code: 'invalid_range',
        message:
          previous === null
            ? 'must be greater than 0'
            : `must be greater than the previous tier's upTo (${previous})`,
      });
    }
    if (isDecimalString(upTo)) previous = upTo;
    return out;
  });
}

/** The amount at a dotted `path` in properties that passed `walk`. */
function at(value: Record<string, unknown>, path: string): string {
  let current: unknown = value;
  for (const key of path.split('.')) current = (current as Record<string, unknown>)[key];
  return current as string;
}

export type PropertiesResult =
  { ok: true; properties: PriceProperties } | { ok: false; errors: FieldError[] };

/**
 * Validates the `properties` of a price of `model`: every amount a decimal string (docs/api.md
 * §1), no extra keys, and lower bounds not above upper bounds. Error fields are paths
 * such as `properties.unitPrice` or `properties.parameters.max`.
 */
export function parsePriceProperties(
  model: PriceModel,
  value: unknown,
  path = 'properties',
): PropertiesResult {
  if (!isPlainObject(value)) {
    return {
      ok: false,
      errors: [{ field: path, code: 'invalid_type', message: 'must be an object' }],
    };
  }
  const errors: FieldError[] = [];
  const properties = walk(SHAPES[model], value, path, errors);
  const ordered = ORDERED[model];
  if (errors.length === 0 && ordered) {
    const [lower, upper] = ordered;
    if (compareDecimals(at(properties, lower), at(properties, upper)) > 0) {
      errors.push({
        field: `${path}.${lower}`,
        code: 'invalid_range',
        message: `must not be greater than ${upper.split('.').pop()}`,
      });
    }
  }
  return errors.length > 0
    ? { ok: false, errors }
    : { ok: true, properties: properties as unknown as PriceProperties };
}

/** Stored properties (already valid) with their keys in the canonical order. */
export function canonicalProperties(model: PriceModel, stored: unknown): PriceProperties {
  return reorder(SHAPES[model], stored) as unknown as PriceProperties;
}

/**
 * `value`'s fields in `shape`'s order, without checking them again (they were checked when
 * written): on every read of a price, so it allocates only the objects it returns.
 */
function reorder(shape: Shape, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isPlainObject(value)) return out;
  for (const key in shape) {
    const rule = shape[key];
    const v = value[key];
    if (v === undefined) continue;
    if (rule === 'tiers' && Array.isArray(v)) {
      out[key] = v.map((tier: unknown) => reorder(TIER, { flatPrice: '0', ...(tier as object) }));
    } else {
      out[key] = typeof rule === 'object' && !Array.isArray(rule) ? reorder(rule as Shape, v) : v;
    }
  }
  return out;
}
