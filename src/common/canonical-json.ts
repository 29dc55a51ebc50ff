/** Canonical array-index keys ("0", "7", "42"), which JavaScript orders first, by value. */
function isIndexKey(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295;
}

/**
 * The order canonicalJson puts keys in: as `Object.fromEntries` of the keys sorted would
 * enumerate them (index-like keys first by value, the others by code unit), as the
 * JSON.stringify replacer it replaces did.
 */
function keyOrder(a: string, b: string): number {
  const ai = isIndexKey(a);
  const bi = isIndexKey(b);
  if (ai || bi) return ai && bi ? Number(a) - Number(b) : ai ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function canonical(value: unknown, key: string): string | undefined {
  if (value !== null && typeof value === 'object' && 'toJSON' in value) {
    const { toJSON } = value;
    if (typeof toJSON === 'function') value = (toJSON as (key: string) => unknown).call(value, key);
  }
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          out += `${i > 0 ? ',' : ''}${canonical(value[i], String(i)) ?? 'null'}`;
        }
        return `${out}]`;
      }
      const record = value as Record<string, unknown>;
      let out = '{';
      for (const k of Object.keys(record).sort(keyOrder)) {
        const v = canonical(record[k], k);
        if (v !== undefined) out += `${out.length > 1 ? ',' : ''}${JSON.stringify(k)}:${v}`;
      }
      return `${out}}`;
    }
    case 'bigint':
      return JSON.stringify(value); // throws, as JSON.stringify does
    default:
      return undefined; // undefined, functions and symbols: left out, as JSON.stringify does
  }
}

/**
 * JSON with object keys sorted at every depth, for the idempotency fingerprint: two bodies with
 * the same fields in another order are the same request. Otherwise exactly JSON.stringify
 * (toJSON, undefined left out or null in arrays), written out by hand: a replacer that rebuilds
 * every object costs twice as much. `undefined` (no body) gives the empty string.
 */
export function canonicalJson(value: unknown): string {
  return canonical(value, '') ?? '';
}
