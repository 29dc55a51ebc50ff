import { Column, ColumnOptions, ColumnType } from 'typeorm';
import { configuredDialect } from '../config/app-config';

/**
 * Entities are shared by both dialects, but a few column types differ. Decorators run when the
 * entity files load, before the app's configuration exists, so the dialect comes from the
 * configuration's own parser of DATABASE_URL (configuredDialect), the one loadConfig validates.
 */
const IS_POSTGRES = configuredDialect() === 'postgres';

/** Instants: timestamptz on PostgreSQL; on SQLite TypeORM stores UTC text with milliseconds. */
export const TIMESTAMP: ColumnType = IS_POSTGRES ? 'timestamptz' : 'datetime';

/** Small JSON documents (metadata, price properties): jsonb on PostgreSQL, text on SQLite. */
export const JSON_COLUMN: ColumnType = IS_POSTGRES ? 'jsonb' : 'simple-json';

/**
 * An instant, as the migrations make it: `timestamptz(3)` on PostgreSQL (milliseconds, what a
 * JavaScript Date holds) and `datetime` on SQLite. Every entity timestamp uses it, so the entities
 * describe the same columns the migrations build.
 */
export function TimestampColumn(
  name: string,
  options: Omit<ColumnOptions, 'name' | 'type' | 'precision'> = {},
): PropertyDecorator {
  return Column({ ...options, name, type: TIMESTAMP, ...(IS_POSTGRES ? { precision: 3 } : {}) });
}

/**
 * The mode of a row (docs/api.md §2): true for live, false for test. The default only says that
 * rows stored before modes existed are live (migration 1763700012000); every insert names its mode.
 */
export function LivemodeColumn(): PropertyDecorator {
  return Column({ type: 'boolean', default: true });
}
