import { applyDecorators } from '@nestjs/common';
import { ApiProperty, DECORATORS } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsString,
  Matches,
  MinLength,
  ValidateBy,
  ValidateIf,
  ValidationOptions,
} from 'class-validator';
import { IdPrefix } from '../ids';
import { DECIMAL_PATTERN, isDecimalString } from '../money/decimal';
import { validateMetadata } from '../metadata';
import { isBlank } from '../text';

/**
 * The constraints a validator enforces, stated in the OpenAPI schema of the field it decorates,
 * so the document says what the API checks without a second, hand-kept copy on each field. Only
 * constraints are set (never type, required or example), and an explicit @ApiProperty on the
 * field wins over them wherever the two stand (a tax rate's narrower pattern, say).
 */
export function documented(
  constraints: { minLength?: number; maxLength?: number; pattern?: string },
  ...validators: PropertyDecorator[]
): PropertyDecorator {
  return applyDecorators(...validators, schemaDefaults(constraints));
}

/** ApiProperty for the keys the field's schema does not set yet (an explicit one set first wins). */
function schemaDefaults(schema: Record<string, unknown>): PropertyDecorator {
  return (target, propertyKey) => {
    const existing = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, target, propertyKey) ??
      {}) as Record<string, unknown>;
    const missing = Object.entries(schema).filter(([key]) => existing[key] === undefined);
    ApiProperty(Object.fromEntries(missing))(target, propertyKey);
  };
}

/**
 * A name-like string's pattern in the OpenAPI document: at least one character that is not white
 * space. The API also counts format characters (Cf) as blank (isBlank), which needs
 * `\p{Cf}`, a Unicode property escape that many clients' regular expressions (Python's `re`)
 * cannot compile; the document states the part every client can check.
 */
export const NOT_BLANK_PATTERN = '\\S';

/**
 * Optional, but not nullable: absent is fine, `null` is rejected. (class-validator's IsOptional
 * lets null through, which on PATCH would blank a required field.)
 */
export function IsOptionalNotNull(): PropertyDecorator {
  return ValidateIf((_object, value) => value !== undefined);
}

/**
 * A rule of this API's own, as class-validator's ValidateBy registers it: `validate` decides, and
 * a failure answers `message` (made from the value when a function) with the field code `code`.
 */
export function Rule(
  name: string,
  code: string,
  message: string | ((value: unknown) => string),
  validate: (value: unknown) => boolean,
  options?: ValidationOptions,
): PropertyDecorator {
  return ValidateBy(
    {
      name,
      validator: {
        validate,
        defaultMessage: (args) => (typeof message === 'string' ? message : message(args?.value)),
      },
    },
    { context: { code }, ...options },
  );
}

/**
 * At most `max` characters, counted as PostgreSQL's varchar(n) counts them: Unicode code points.
 * (class-validator's MaxLength counts an emoji as one but U+FE0F as none, so a string it accepts
 * could overflow the column.)
 */
function MaxCharacters(max: number): PropertyDecorator {
  return Rule(
    'maxLength',
    'too_long',
    `must be at most ${max} characters`,
    (value) => typeof value !== 'string' || [...value].length <= max,
  );
}

/** A name-like string: 1-200 characters and not blank (docs/api.md §1). */
export function IsName(max = 200): PropertyDecorator {
  return documented(
    { minLength: 1, maxLength: max, pattern: NOT_BLANK_PATTERN },
    IsString(),
    MinLength(1, { context: { code: 'too_short' }, message: 'must not be empty' }),
    MaxCharacters(max),
    Rule(
      'notBlank',
      'blank',
      'must not be blank (only spaces or invisible characters)',
      (value) => typeof value !== 'string' || !isBlank(value),
    ),
  );
}

/** A free-text description: at most 2,000 characters. */
export function IsDescription(): PropertyDecorator {
  return documented({ maxLength: 2000 }, IsString(), MaxCharacters(2000));
}

/** A money or rate amount as a decimal string (docs/api.md §1). */
export function IsDecimalString(options?: ValidationOptions): PropertyDecorator {
  return documented(
    { pattern: DECIMAL_PATTERN.source },
    Rule(
      'isDecimalString',
      'invalid_decimal',
      'must be a decimal string such as "0.25" (up to 18 integer and 12 fractional digits)',
      isDecimalString,
      options,
    ),
  );
}

/**
 * The OpenAPI schema of a metadata object (docs/api.md §1): at most 50 keys, values strings of at
 * most 500 characters, numbers or booleans; on PATCH a value may also be null (removes the key).
 */
export function metadataSchema(opts: { allowNullValues?: boolean } = {}) {
  return {
    type: 'object' as const,
    maxProperties: 50,
    additionalProperties: {
      oneOf: [
        {
          type: 'string' as const,
          maxLength: 500,
          ...(opts.allowNullValues ? { nullable: true } : {}),
        },
        { type: 'number' as const },
        { type: 'boolean' as const },
      ],
    },
  };
}

/** A metadata object (docs/api.md §1); `allowNull` lets PATCH remove keys with null values. */
export function IsMetadata(opts: { allowNullValues?: boolean } = {}): PropertyDecorator {
  const validate = Rule(
    'isMetadata',
    'invalid_metadata',
    (value) => validateMetadata(value, opts) ?? 'is invalid',
    (value) => validateMetadata(value, opts) === null,
  );
  return applyDecorators(validate, schemaDefaults(metadataSchema(opts)));
}

/**
 * A field that exists on the resource but may not be set by this request: present at all (even
 * null), it is a 400 whose message says what to do instead. Put `@ApiHideProperty()` beside it:
 * the Swagger plugin reads that decorator from the source to leave the field out of the schema.
 */
export function NotAllowed(message: string, code = 'field_not_allowed'): PropertyDecorator {
  return Rule('notAllowed', code, message, (value) => value === undefined);
}

/** Query strings: `true`/`false` become booleans; anything else stays and fails IsBoolean. */
export function ToBoolean(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) =>
    value === 'true' ? true : value === 'false' ? false : value,
  );
}

/**
 * Query strings: a whole decimal number becomes a number; anything else becomes NaN and fails
 * as the wrong type. A whole number too long to be exact (over 15 digits) becomes the largest
 * safe integer of its sign, which is out of every range (`limit=99999999999999999999` is
 * `out_of_range` like `limit=101`, not a wrong type).
 */
export function ToInteger(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !/^-?\d+$/.test(value)) return NaN;
    const negative = value.startsWith('-');
    return value.length - (negative ? 1 : 0) > 15
      ? (negative ? -1 : 1) * Number.MAX_SAFE_INTEGER
      : Number(value);
  });
}

/** The shape of every id of one prefix (docs/api.md §1). */
export function idPattern(prefix: IdPrefix): RegExp {
  return new RegExp(`^${prefix}_[0-9A-Za-z]{16,40}$`);
}

/**
 * A string with the shape of an id of this prefix (it may still not exist): 400 `invalid_id`
 * otherwise. For ids in bodies and filters; path ids of the wrong shape are 404s instead.
 */
export function IsIdShape(prefix: IdPrefix, what: string): PropertyDecorator {
  const pattern = idPattern(prefix);
  return documented(
    { pattern: pattern.source },
    IsString(),
    Matches(pattern, {
      context: { code: 'invalid_id' },
      message: `must be ${what} id such as "${prefix}_01JD3Y2Q6J8C4N1V9W5X7Z0ABC"`,
    }),
  );
}
