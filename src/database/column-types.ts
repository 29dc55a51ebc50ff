import { Column, ColumnOptions } from 'typeorm';
import type { DatabaseKind } from '../config/app-config';

/**
 * Entities are shared by both dialects, but two column types differ. Decorators run when the
 * entity files load, before the configuration exists, so they cannot know the dialect: they
 * record their options here, and `useDialect` sets the types from the validated configuration
 * (`dataSourceOptions(config.database)` calls it) before a data source builds its metadata.
 * TypeORM keeps the very options object a decorator passes, so setting it here is what it reads.
 */
const TYPES = {
  /** Instants: timestamptz(3) on PostgreSQL (milliseconds, what a Date holds); UTC text on SQLite. */
  timestamp: {
    sqlite: { type: 'datetime', precision: undefined },
    postgres: { type: 'timestamptz', precision: 3 },
  },
  /** Small JSON documents (metadata, price properties): jsonb on PostgreSQL. */
  json: {
    sqlite: { type: 'simple-json', precision: undefined },
    postgres: { type: 'jsonb', precision: undefined },
  },
  /**
   * JSON documents shown as they were written (an event's data): json on PostgreSQL, which
   * keeps the text, where jsonb would give the keys back in an order of its own.
   */
  jsonText: {
    sqlite: { type: 'simple-json', precision: undefined },
    postgres: { type: 'json', precision: undefined },
  },
} as const satisfies Record<string, Record<DatabaseKind, ColumnOptions>>;

type DialectKind = keyof typeof TYPES;

/** Every column whose type depends on the dialect: the options TypeORM keeps, and its kind. */
const dialectColumns: { options: ColumnOptions; kind: DialectKind }[] = [];

/** The dialect of the columns declared from now on (see useDialect). */
let currentDialect: DatabaseKind = 'sqlite';

function dialectColumn(kind: DialectKind, options: ColumnOptions): PropertyDecorator {
  // The current dialect's types (SQLite's until useDialect says otherwise): an entity file loaded
  // after useDialect, as a data source's entity glob loads them, gets the types already set.
  const own: ColumnOptions = { ...options, ...TYPES[kind][currentDialect] };
  dialectColumns.push({ options: own, kind });
  return Column(own);
}

/**
 * Gives every dialect-dependent column the type of `dialect`, those declared already and those
 * declared later. One dialect per process (the service's configured one): a data source takes the
 * types set when it initializes.
 */
export function useDialect(dialect: DatabaseKind): void {
  currentDialect = dialect;
  for (const { options, kind } of dialectColumns) Object.assign(options, TYPES[kind][dialect]);
}

/**
 * An instant, as the migrations make it: `timestamptz(3)` on PostgreSQL and `datetime` on SQLite.
 * Every entity timestamp uses it, so the entities describe the same columns the migrations build.
 */
export function TimestampColumn(
  name: string,
  options: Omit<ColumnOptions, 'name' | 'type' | 'precision'> = {},
): PropertyDecorator {
  return dialectColumn('timestamp', { ...options, name });
}

/** The options a JSON column takes: all but its type, which the dialect sets. */
type JsonOptions = Omit<ColumnOptions, 'type' | 'precision'>;

/** A JSON document: `jsonb` on PostgreSQL, JSON text (`simple-json`) on SQLite. */
export const JsonColumn = (options: JsonOptions = {}) => dialectColumn('json', options);

/**
 * A JSON document read back with its keys in the order written: `json` on PostgreSQL, JSON text
 * (`simple-json`) on SQLite. For what is shown as it was recorded (an event's `data.object` is
 * the resource exactly as GET showed it); nothing queries inside it.
 */
export const JsonTextColumn = (options: JsonOptions = {}) => dialectColumn('jsonText', options);

/**
 * The mode of a row (docs/api.md §2): true for live, false for test. The default only says that
 * rows stored before modes existed are live (migration 1763700012000); every insert names its mode.
 */
export function LivemodeColumn(): PropertyDecorator {
  return Column({ type: 'boolean', default: true });
}
