/**
 * True when a write failed on a unique index (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE).
 * With `index`, only that index counts: PostgreSQL names it; SQLite names the columns instead,
 * so there any unique violation matches.
 */
export function isUniqueViolation(err: unknown, index?: string): boolean {
  const driver = (err as { driverError?: { code?: unknown; constraint?: unknown } })?.driverError;
  if (driver?.code === '23505') return index === undefined || driver.constraint === index;
  return driver?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}
