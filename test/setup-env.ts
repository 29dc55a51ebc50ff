/**
 * Runs before every test file: the dialect must be known before entity files load, because a few
 * column types differ (src/database/column-types.ts). Each suite then gets its own database.
 */
process.env.NODE_ENV = 'test';
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
if (process.env.TEST_DATABASE === 'postgres') {
  process.env.DATABASE_URL =
    process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
} else {
  process.env.DATABASE_URL = 'sqlite::memory:';
}
