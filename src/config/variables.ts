/**
 * The kinds of environment variable the configuration table (app-config.ts) is made of, and how
 * a table is read: each variable's name, its default, and how a set value is checked and read.
 */

/** One environment variable: its name, its value when unset, and how a value is read. */
export class Variable<T> {
  constructor(
    readonly name: string,
    /** The value when unset (or empty). */
    readonly fallback: T,
    /** The value of a set variable, or the problem: a sentence that starts with the name. */
    readonly parse: (raw: string) => T | Problem,
  ) {}
}

/** What a parse answers for a bad value. */
export class Problem {
  constructor(readonly message: string) {}
}

/** A whole number from min to max. */
export function integer(name: string, fallback: number, min: number, max: number) {
  return new Variable(name, fallback, (raw) =>
    /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max
      ? Number(raw)
      : new Problem(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`),
  );
}

/** A switch: true, 1 or on; false, 0 or off. */
export function flag(name: string, fallback: boolean) {
  return new Variable(name, fallback, (raw) => {
    if (['true', '1', 'on'].includes(raw)) return true;
    if (['false', '0', 'off'].includes(raw)) return false;
    return new Problem(`${name} must be true or false (got "${raw}")`);
  });
}

/** One of a few words. */
export function choice<T extends string>(
  name: string,
  values: readonly T[],
  fallback: T,
  message = `must be one of ${values.join(', ')}`,
): Variable<T> {
  return new Variable(name, fallback, (raw) =>
    (values as readonly string[]).includes(raw)
      ? (raw as T)
      : new Problem(`${name} ${message} (got "${raw}")`),
  );
}

/** Free text, or text that must pass `check` (a message when it does not). */
export function text(
  name: string,
  fallback: string,
  check: (raw: string) => string | undefined = () => undefined,
): Variable<string> {
  return new Variable(name, fallback, (raw) => {
    const problem = check(raw);
    return problem === undefined ? raw : new Problem(problem);
  });
}

/** A variable with no default: undefined when unset. */
export function optional<T>(
  name: string,
  parse: (raw: string) => T | Problem,
): Variable<T | undefined> {
  return new Variable<T | undefined>(name, undefined, parse);
}

export type Table = { [key: string]: Variable<unknown> | Table };
/** The values a table of variables gives. */
export type Values<T> = { [K in keyof T]: T[K] extends Variable<infer V> ? V : Values<T[K]> };
/** Reads each variable of `table` from `env`; a bad one adds its problem and reads as its default. */
export function readTable(
  table: Table,
  env: NodeJS.ProcessEnv,
  problems: string[],
): Record<string, unknown> {
  const section: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(table)) {
    if (!(entry instanceof Variable)) {
      section[key] = readTable(entry, env, problems);
      continue;
    }
    const raw = env[entry.name];
    const value = raw === undefined || raw === '' ? entry.fallback : entry.parse(raw);
    if (value instanceof Problem) problems.push(value.message);
    section[key] = value instanceof Problem ? entry.fallback : value;
  }
  return section;
}
