import { assertIfMatch } from '../common/etag';

/** One read-modify-write of a row, as `lockedUpdate` runs it. */
export interface LockedUpdate<E extends object, V> {
  /** Loads the row with a write lock (a repository's `findForUpdate`); null when it is not there. */
  load(): Promise<E | null>;
  /** The error for a row that is not there (404). */
  notFound(): Error;
  /** Refuses the update of this row before If-Match is looked at (a deleted plan: 409). */
  refuse?(row: E): void;
  /** The API view of the row: what If-Match is compared with and what the update answers. */
  view(row: E): V;
  /** The If-Match request header, when sent. */
  ifMatch?: string;
  /** The fields the request asks for (changed or not); may throw a 400 or write related rows. */
  changes(row: E): Partial<E> | Promise<Partial<E>>;
  /** Writes the fields that changed, `updatedAt` among them (a repository's `update`). */
  write(row: E, changed: Partial<E>): Promise<void>;
  /** After a write that changed something, with the views before and after (records an event). */
  written?(before: V, after: V): Promise<void>;
}

/**
 * The one update path of every resource, inside the caller's transaction: load the row with a
 * lock (so concurrent writers queue and none loses an update), check If-Match against the view
 * the client could have read (412), work out which fields really change, and write only those
 * with a new `updatedAt`. A request that changes nothing writes nothing, so `updatedAt` and the
 * ETag stay as they were (docs/api.md §6). Returns the view after the update.
 */
export async function lockedUpdate<E extends { updatedAt: Date }, V>(
  update: LockedUpdate<E, V>,
): Promise<V> {
  const row = await update.load();
  if (!row) throw update.notFound();
  update.refuse?.(row);
  const before = update.view(row);
  assertIfMatch(update.ifMatch, before);
  const wanted = await update.changes(row);
  const changed: Partial<E> = {};
  for (const key of Object.keys(wanted) as (keyof E)[]) {
    const value = wanted[key];
    if (value !== undefined && !sameValue(value, row[key])) changed[key] = value;
  }
  if (Object.keys(changed).length === 0) return before;
  changed.updatedAt ??= new Date();
  await update.write(row, changed);
  const after = update.view({ ...row, ...changed });
  await update.written?.(before, after);
  return after;
}

/**
 * Equal values as a client sees them: plain objects (metadata, price properties) key by key in
 * any order, everything else by identity (dates by their instant).
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]))
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
  );
}
