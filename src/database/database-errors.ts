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

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57014', // query_canceled: statement_timeout, the statement waited or ran too long
]);

/** The driver's error code (SQLSTATE on PostgreSQL, SQLITE_… on SQLite), or undefined. */
export function driverCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; driverError?: { code?: unknown } };
  const code = e.driverError?.code ?? e.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when the error says the database could not be reached, not that a statement was wrong. */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = driverCode(err);
  if (code && CONNECTION_ERROR_CODES.has(code)) return true;
  // SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_…: another connection holds the database.
  if (code && /^SQLITE_(BUSY|LOCKED)/.test(code)) return true;
  const message = (err as { message?: unknown } | null)?.message;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|database is locked|Query read timeout/i.test(
    typeof message === 'string' ? message : '',
  );
}
