import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import type { MetadataStorage } from 'class-validator/types/metadata/MetadataStorage';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { FieldError, ValidationFailedError } from '../common/errors';

/** What each class-validator constraint means to a client, as a stable code. */
const CONSTRAINT_CODES: Record<string, string> = {
  isDefined: 'required',
  isString: 'invalid_type',
  isInt: 'invalid_type',
  isNumber: 'invalid_type',
  isBoolean: 'invalid_type',
  isArray: 'invalid_type',
  isObject: 'invalid_type',
  nestedValidation: 'invalid_type',
  isIn: 'invalid_value',
  isEnum: 'invalid_value',
  min: 'out_of_range',
  max: 'out_of_range',
  minLength: 'too_short',
  maxLength: 'too_long',
  isLength: 'invalid_length',
  arrayMaxSize: 'too_many_items',
  arrayMinSize: 'too_few_items',
  arrayUnique: 'duplicate_item',
  isNotEmpty: 'blank',
  matches: 'invalid_format',
};

/** A wrong type explains every other failure of the same field, so it is reported first. */
const TYPE_CONSTRAINTS = new Set([
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
]);

function joinPath(parent: string, property: string): string {
  if (parent === '') return property;
  return /^\d+$/.test(property) ? `${parent}[${property}]` : `${parent}.${property}`;
}

/** One entry per invalid field: the most telling constraint wins, so a missing field says `required`. */
function toFieldError(error: ValidationError, path: string): FieldError {
  const constraints = error.constraints ?? {};
  const names = Object.keys(constraints);
  const contexts = (error.contexts ?? {}) as Record<string, { code?: string } | undefined>;
  if (names.includes('whitelistValidation')) {
    return { field: path, code: 'unknown_field', message: 'is not a field of this request' };
  }
  // A field that is absent (or null where null is not allowed) fails every rule; say only that.
  if (error.value === undefined || (error.value === null && !names.includes('notAllowed'))) {
    const isRequired = error.value === undefined;
    return {
      field: path,
      code: isRequired ? 'required' : 'invalid_type',
      message: isRequired ? 'is required' : 'may not be null',
    };
  }
  const name =
    names.find((n) => TYPE_CONSTRAINTS.has(n)) ?? names.find((n) => contexts[n]?.code) ?? names[0];
  const code =
    contexts[name]?.code ??
    CONSTRAINT_CODES[name] ??
    name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  // class-validator's message, without the field name it begins with.
  const message = constraints[name].replace(
    new RegExp(`^(each value in )?${error.property} `),
    '$1',
  );
  return { field: path, code, message };
}

export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const path = joinPath(parent, error.property);
    if (error.constraints && Object.keys(error.constraints).length > 0) {
      out.push(toFieldError(error, path));
    }
    if (error.children && error.children.length > 0) {
      out.push(...flattenValidationErrors(error.children, path));
    }
  }
  return out;
}

const MEMOIZED = Symbol('billing-api memoized class-validator metadata');

/**
 * class-validator looks a class's rules up again on every validate(): a scan of every class it
 * knows (for inherited rules), two filters, and a grouping by property, per object validated.
 * The rules of a class are fixed once it is defined, so both lookups are remembered here (and
 * forgotten whenever a rule is added). The results are read-only to class-validator.
 */
export function memoizeValidationMetadata(storage: MetadataStorage = getMetadataStorage()): void {
  const patched = storage as MetadataStorage & { [MEMOIZED]?: true };
  if (patched[MEMOIZED]) return;
  patched[MEMOIZED] = true;
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  let lookups = new WeakMap<object, Map<string, ValidationMetadata[]>>();
  let groupings = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();
  storage.addValidationMetadata = (metadata: ValidationMetadata) => {
    lookups = new WeakMap();
    groupings = new WeakMap();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}|${always}|${strictGroups}|${groups?.join(',') ?? ''}`;
    let byOptions = lookups.get(target);
    if (!byOptions) lookups.set(target, (byOptions = new Map<string, ValidationMetadata[]>()));
    let found = byOptions.get(key);
    if (!found) byOptions.set(key, (found = lookup(target, schema, always, strictGroups, groups)));
    return found;
  };
  storage.groupByPropertyName = (metadata: ValidationMetadata[]) => {
    let grouped = groupings.get(metadata);
    if (!grouped) groupings.set(metadata, (grouped = group(metadata)));
    return grouped;
  };
}

/**
 * The one validation pipe (registered as APP_PIPE): strips nothing silently, rejects unknown
 * fields, transforms into DTO instances, and reports every problem in the error envelope.
 */
@Injectable()
export class AppValidationPipe extends ValidationPipe {
  constructor() {
    memoizeValidationMetadata();
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      validateCustomDecorators: false,
      exceptionFactory: (errors) => new ValidationFailedError(flattenValidationErrors(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object) {
      // A request without a body is an empty object: PATCH {} is a valid no-op.
      if (value === undefined) value = {};
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw ValidationFailedError.field('body', 'invalid_type', 'the body must be a JSON object');
      }
    }
    if (metadata.type === 'query' && metadata.metatype && metadata.metatype !== Object) {
      const repeated = Object.entries((value ?? {}) as Record<string, unknown>).find(([, v]) =>
        Array.isArray(v),
      );
      if (repeated) {
        throw ValidationFailedError.field(repeated[0], 'invalid_type', 'may be given only once');
      }
    }
    if (metadata.type === 'body' || metadata.type === 'query') {
      const found = findUnstorableText(value);
      if (found !== null) {
        throw ValidationFailedError.field(found.path || metadata.type, found.code, found.message);
      }
    }
    if (metadata.type !== 'body') return super.transform(value, metadata);
    try {
      return await super.transform(value, metadata);
    } catch (err) {
      if (!(err instanceof ValidationFailedError)) throw err;
      throw withCrossFieldErrors(withServerSetFields(err), metadata.metatype, value);
    }
  }
}

/**
 * A body class whose rules span several fields (an account number is checked by the rules of
 * its country) and so run in its service, once every field is valid on its own. When some field
 * is not, the service never runs: the class lists those rules' problems here too, so that one
 * answer names every wrong field (docs/api.md §3).
 */
export interface WithCrossFieldErrors {
  crossFieldErrors(body: Record<string, unknown>): FieldError[];
}

function withCrossFieldErrors(
  err: ValidationFailedError,
  metatype: unknown,
  body: unknown,
): ValidationFailedError {
  const check = (metatype as Partial<WithCrossFieldErrors> | undefined)?.crossFieldErrors;
  if (typeof check !== 'function') return err;
  const errors = err.errors ?? [];
  const listed = new Set(errors.map((e) => e.field));
  const more = check(body as Record<string, unknown>).filter((e) => !listed.has(e.field));
  return more.length === 0 ? err : new ValidationFailedError([...errors, ...more]);
}

/**
 * Fields every resource has and no request sets (docs/api.md §1): sent in a body they exist, so
 * they are refused as fields that may not be set, with what decides them, not as unknown ones.
 */
const SERVER_SET_FIELDS: Record<string, string> = {
  id: 'is assigned by the service when the resource is created',
  object: 'is set by the service: it names the type of the resource',
  livemode: 'follows the API key: a test-mode key works in test mode, a live-mode key in live mode',
  createdAt: 'is set by the service when the resource is created',
  updatedAt: 'is set by the service at each change',
  deletedAt: 'is set by the service: DELETE the resource to delete it',
};

function withServerSetFields(err: ValidationFailedError): ValidationFailedError {
  const errors = err.errors ?? [];
  const serverSet = (e: FieldError) =>
    e.code === 'unknown_field' && Object.hasOwn(SERVER_SET_FIELDS, e.field);
  if (!errors.some(serverSet)) return err;
  return new ValidationFailedError(
    errors.map((e) =>
      serverSet(e)
        ? { field: e.field, code: 'field_not_allowed', message: SERVER_SET_FIELDS[e.field] }
        : e,
    ),
  );
}

/** An unpaired UTF-16 surrogate: JSON allows it ("\ud800"), UTF-8 (and so both databases) cannot hold it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Keys that name members of every JavaScript object: class-transformer skips them (or fails on
 * `constructor`) when it builds a DTO, so a field or metadata key with such a name would vanish
 * silently. They are refused instead.
 */
function isReservedKey(key: string): boolean {
  return key === 'prototype' || Object.prototype.hasOwnProperty.call(Object.prototype, key);
}

function textProblem(text: string): { code: string; message: string } | null {
  if (text.includes('\u0000')) {
    return { code: 'invalid_character', message: 'must not contain the NUL character (\\u0000)' };
  }
  if (LONE_SURROGATE.test(text)) {
    return {
      code: 'invalid_character',
      message:
        'must be valid Unicode: it holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape)',
    };
  }
  return null;
}

/**
 * The first string or object key of a body or query that could not be stored and returned as
 * sent, or null: the NUL character (PostgreSQL cannot store it, so every module refuses it the
 * same way on both databases), a lone surrogate (stored as U+FFFD otherwise), or a reserved key.
 * Iterative, so that no nesting the JSON parser lets through can exhaust the stack.
 */
export function findUnstorableText(
  value: unknown,
): { path: string; code: string; message: string } | null {
  const pending: { value: unknown; path: string }[] = [{ value, path: '' }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    if (typeof current === 'string') {
      const problem = textProblem(current);
      if (problem) return { path, ...problem };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) {
        pending.push({ value: current[i], path: `${path}[${i}]` });
      }
    } else if (typeof current === 'object' && current !== null) {
      const entries: [string, unknown][] = Object.entries(current);
      for (const [key] of entries) {
        const problem = textProblem(key);
        if (problem) return { path: path || 'body', ...problem };
        if (isReservedKey(key)) {
          return {
            path: path ? `${path}.${key}` : key,
            code: 'reserved_key',
            message: `"${key}" is a reserved name and cannot be used as a key`,
          };
        }
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, v] = entries[i];
        pending.push({ value: v, path: path ? `${path}.${key}` : key });
      }
    }
  }
  return null;
}
