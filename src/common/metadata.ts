import { ValidationFailedError } from './errors';
import { InexactNumber } from './json-numbers';

export type MetadataValue = string | number | boolean;
export type Metadata = Record<string, MetadataValue>;
export type MetadataPatch = Record<string, MetadataValue | null>;

export const METADATA_MAX_KEYS = 50;
export const METADATA_KEY_MAX = 40;
export const METADATA_VALUE_MAX = 500;

/** Returns why `value` is not valid metadata, or null when it is (docs/api.md §1). */
export function validateMetadata(
  value: unknown,
  opts: { allowNullValues?: boolean } = {},
): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'must be a flat JSON object';
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > METADATA_MAX_KEYS) return `may have at most ${METADATA_MAX_KEYS} keys`;
  for (const [key, v] of entries) {
    // Lengths count characters (Unicode code points), as names do: not UTF-16 units.
    const keyLength = characters(key);
    if (keyLength < 1 || keyLength > METADATA_KEY_MAX) {
      return `keys must be 1-${METADATA_KEY_MAX} characters (got "${[...key].slice(0, 50).join('')}")`;
    }
    if (v === null && opts.allowNullValues) continue;
    if (typeof v === 'string') {
      if (characters(v) > METADATA_VALUE_MAX) {
        return `value of "${key}" must be at most ${METADATA_VALUE_MAX} characters`;
      }
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `value of "${key}" must be a finite number`;
      if (Number.isInteger(v) && !Number.isSafeInteger(v)) return inexact(key);
    } else if (v instanceof InexactNumber) {
      return inexact(key);
    } else if (typeof v !== 'boolean') {
      return `value of "${key}" must be a string, number or boolean (nested objects, arrays and null are not allowed)`;
    }
  }
  return null;
}

/** How many characters (Unicode code points) `text` has, without building an array. */
export function characters(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

function inexact(key: string): string {
  return `value of "${key}" is a number that would not come back exactly as sent (an integer beyond ±(2^53-1), or a decimal with more digits than a double holds); send it as a string`;
}

/**
 * JSON Merge Patch (RFC 7396) of flat metadata: keys set to null are removed, others replace;
 * `null` for the whole object removes every key. The result must still fit the limits.
 */
export function mergeMetadata(
  current: Metadata,
  patch: MetadataPatch | null | undefined,
): Metadata {
  if (patch === undefined) return current;
  if (patch === null) return {};
  const merged: Metadata = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  if (Object.keys(merged).length > METADATA_MAX_KEYS) {
    throw ValidationFailedError.field(
      'metadata',
      'invalid_metadata',
      `may have at most ${METADATA_MAX_KEYS} keys after the update`,
    );
  }
  return merged;
}

/**
 * Metadata keys in a fixed order (code-unit order; index-like keys first, as JavaScript
 * enumerates them), so SQLite text and PostgreSQL jsonb, which reorders keys, read back as the
 * same JSON. Every view that shows metadata uses it: ETags hash the serialized view.
 */
export function sortedMetadata(metadata: Metadata): Metadata {
  const keys = Object.keys(metadata);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1] < keys[i];
  if (sorted) return metadata;
  const out: Metadata = {};
  for (const key of keys.sort()) out[key] = metadata[key];
  return out;
}
