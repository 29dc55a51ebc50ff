import { Rule, documented } from './decorators';

/** An instant as the API writes it: ISO 8601, UTC with a `Z`, milliseconds optional. */
export const INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/** Years the API accepts in an instant: anything else is a typo, never a date to bill on. */
const MIN_YEAR = 2000;
const MAX_YEAR = 2999;

/**
 * The instant a string names, or null when it is not one: the pattern above, a real calendar
 * date (no 31 April, no 29 February 2027) and a year from 2000 to 2999.
 */
export function parseInstant(value: unknown): Date | null {
  if (typeof value !== 'string' || !INSTANT_PATTERN.test(value)) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  const year = date.getUTCFullYear();
  if (year < MIN_YEAR || year > MAX_YEAR) return null;
  // Date rolls 2027-02-30 over into March; the calendar date must come back as written.
  if (date.toISOString().slice(0, 19) !== value.slice(0, 19)) return null;
  return date;
}

/** An ISO 8601 UTC instant (`2026-01-31T12:00:00.000Z`): 400 `invalid_instant` otherwise. */
export function IsInstant(): PropertyDecorator {
  return documented(
    { pattern: INSTANT_PATTERN.source },
    Rule(
      'isInstant',
      'invalid_instant',
      'must be an ISO 8601 instant in UTC with a Z, such as "2026-01-31T12:00:00.000Z" (years 2000-2999)',
      (value) => parseInstant(value) !== null,
    ),
  );
}
