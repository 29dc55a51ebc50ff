/** An empty description means none: `""` is stored and returned as null. */
export function normalizeDescription(value: string | null | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}
