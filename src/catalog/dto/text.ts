import { ValidateBy } from 'class-validator';

function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return Object.entries(value).some(([k, v]) => k.includes('\u0000') || containsNul(v));
  }
  return false;
}

/**
 * PostgreSQL cannot store U+0000 in text or jsonb; refusing it here keeps a 400 from becoming a
 * 500, and keeps both dialects answering the same. For an object (metadata) it checks keys and
 * string values.
 */
export function HasNoNulCharacter(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'hasNoNulCharacter',
      validator: {
        validate: (value: unknown) => !containsNul(value),
        defaultMessage: () => 'must not contain the NUL character (\\u0000)',
      },
    },
    { context: { code: 'invalid_character' } },
  );
}

/** An empty description means none: `""` is stored and returned as null. */
export function normalizeDescription(value: string | null | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}
