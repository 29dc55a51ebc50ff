import { FieldError } from '../common/errors';
import { compareDecimals, isDecimalString } from '../common/money/decimal';

/** Pricing models (docs/api.md §5.3) and the shape of `properties` for each. */
export const PRICE_MODELS = ['standard', 'dynamic', 'volume'] as const;
export type PriceModel = (typeof PRICE_MODELS)[number];

export interface StandardProperties {
  unitPrice: string;
}

export interface DynamicProperties {
  minPrice: string;
  maxPrice: string;
}

export interface VolumeProperties {
  default: string;
  parameters: { function: 'linear'; gradient: string; min: string; max: string };
}

export type PriceProperties = StandardProperties | DynamicProperties | VolumeProperties;

/** A leaf is a decimal amount or one of a few literal strings; anything else is a nested object. */
type Shape = { [key: string]: 'decimal' | readonly string[] | Shape };

const SHAPES: Record<PriceModel, Shape> = {
  standard: { unitPrice: 'decimal' },
  dynamic: { minPrice: 'decimal', maxPrice: 'decimal' },
  volume: {
    default: 'decimal',
    parameters: { function: ['linear'], gradient: 'decimal', min: 'decimal', max: 'decimal' },
  },
};

/** Pairs that must be ordered, as paths inside `properties`: [lower, upper]. */
const ORDERED: Record<PriceModel, [string[], string[]][]> = {
  standard: [],
  dynamic: [[['minPrice'], ['maxPrice']]],
  volume: [
    [
      ['parameters', 'min'],
      ['parameters', 'max'],
    ],
  ],
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
    } else if (rule === 'decimal') {
      if (isDecimalString(v)) out[key] = v;
      else
        errors.push({
          field,
          code: 'invalid_decimal',
          message:
            'must be a decimal string such as "0.25" (up to 18 integer and 12 fractional digits)',
        });
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

function at(value: Record<string, unknown>, path: string[]): unknown {
  let current: unknown = value;
  for (const key of path) current = isPlainObject(current) ? current[key] : undefined;
  return current;
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
  if (errors.length === 0) {
    for (const [lowerPath, upperPath] of ORDERED[model]) {
      const lower = at(properties, lowerPath) as string;
      const upper = at(properties, upperPath) as string;
      if (compareDecimals(lower, upper) > 0) {
        errors.push({
          field: `${path}.${lowerPath.join('.')}`,
          code: 'invalid_range',
          message: `must not be greater than ${upperPath[upperPath.length - 1]}`,
        });
      }
    }
  }
  return errors.length > 0
    ? { ok: false, errors }
    : { ok: true, properties: properties as unknown as PriceProperties };
}

/** Stored properties (already valid) with their keys in the canonical order. */
export function canonicalProperties(model: PriceModel, stored: unknown): PriceProperties {
  return reorder(SHAPES[model], isPlainObject(stored) ? stored : {}) as unknown as PriceProperties;
}

/**
 * `value`'s fields in `shape`'s order, without checking them again (they were checked when
 * written): on every read of a price, so it allocates only the objects it returns.
 */
function reorder(shape: Shape, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in shape) {
    const rule = shape[key];
    const v = value[key];
    if (v === undefined) continue;
    out[key] =
      typeof rule === 'object' && !Array.isArray(rule) && isPlainObject(v)
        ? reorder(rule as Shape, v)
        : v;
  }
  return out;
}
