/** An empty description means none: `""` is stored and returned as null. */
export function normalizeDescription(value: string | null | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

/**
 * A character that shows: neither white space (`\s`: spaces, tabs, line breaks, NBSP, U+3000,
 * U+FEFF, …) nor a format character (Unicode category Cf: U+200B zero-width space, U+200C and
 * U+200D joiners, U+2060 word joiner, U+00AD soft hyphen, bidirectional controls, …), which
 * render as nothing.
 */
export const VISIBLE_CHARACTER = /[^\s\p{Cf}]/u;

/**
 * Whether `text` is blank: made only of white space and format characters, so that it shows as
 * nothing (docs/api.md §1: names are not blank). The empty string is blank too.
 */
export function isBlank(text: string): boolean {
  return !VISIBLE_CHARACTER.test(text);
}
