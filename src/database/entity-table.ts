import { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { DatabaseKind } from '../config/app-config';

/**
 * An entity's table for hand-written SQL on hot paths: its column list, and the conversion of raw
 * rows into entities and of values into parameters with TypeORM's own per-dialect rules (SQLite
 * keeps datetimes and JSON as text; PostgreSQL has timestamptz and jsonb). TypeORM's find
 * options and query builder rebuild the SQL text, its aliases and the entity on every call;
 * with this the text is built once and a row costs one pass over the columns.
 */
export class EntityTable<T extends ObjectLiteral> {
  /** The quoted table name. */
  readonly name: string;
  /** `INSERT INTO table (every column) VALUES (?, ...)`; `values(entity)` gives its parameters. */
  readonly insertSql: string;
  private readonly columns: ColumnMetadata[];
  private readonly byProperty = new Map<string, ColumnMetadata>();
  private readonly lists = new Map<string, string>();
  private readonly multiInserts = new Map<number, string>();
  private readonly readers: {
    property: string;
    name: string;
    hydrate: (value: unknown) => unknown;
  }[];

  constructor(
    private readonly dataSource: DataSource,
    dialect: DatabaseKind,
    entity: EntityTarget<T>,
  ) {
    const metadata = dataSource.getMetadata(entity);
    this.name = `"${metadata.tableName}"`;
    this.columns = metadata.columns;
    for (const column of this.columns) this.byProperty.set(column.propertyName, column);
    this.readers = this.columns.map((column) => ({
      property: column.propertyName,
      name: column.databaseName,
      hydrate: hydratorFor(dataSource, dialect, column),
    }));
    this.insertSql =
      `INSERT INTO ${this.name} (${this.columns.map((c) => `"${c.databaseName}"`).join(', ')}) ` +
      `VALUES (${this.columns.map(() => '?').join(', ')})`;
  }

  /** `insertSql` for `rows` rows in one statement; the parameters are each row's `values`, in order. */
  insertRowsSql(rows: number): string {
    let text = this.multiInserts.get(rows);
    if (text === undefined) {
      const [head, row] = this.insertSql.split(' VALUES ');
      text = `${head} VALUES ${Array.from({ length: rows }, () => row).join(', ')}`;
      this.multiInserts.set(rows, text);
    }
    return text;
  }

  /** Every column under its own name, for a SELECT list; qualified by `alias` when given. */
  columnList(alias?: string): string {
    const key = alias ?? '';
    let list = this.lists.get(key);
    if (list === undefined) {
      list = this.columns
        .map((c) =>
          alias ? `"${alias}"."${c.databaseName}" AS "${c.databaseName}"` : `"${c.databaseName}"`,
        )
        .join(', ');
      this.lists.set(key, list);
    }
    return list;
  }

  /** A row whose keys are column names, as an entity. */
  fromRow(row: Record<string, unknown>): T {
    const entity: Record<string, unknown> = {};
    for (const { property, name, hydrate } of this.readers) {
      const value = row[name];
      entity[property] = value === null || value === undefined ? value : hydrate(value);
    }
    return entity as T;
  }

  /** The parameters of `insertSql` for `entity`. */
  values(entity: T): unknown[] {
    const driver = this.dataSource.driver;
    return this.columns.map(
      (c): unknown => driver.preparePersistentValue(entity[c.propertyName], c) as unknown,
    );
  }

  /** `value` as a parameter for the column of `property` (a Date becomes SQLite's datetime text). */
  param(property: keyof T & string, value: unknown): unknown {
    const column = this.byProperty.get(property);
    if (!column) throw new Error(`${this.name} has no column for ${property}`);
    return this.dataSource.driver.preparePersistentValue(value, column) as unknown;
  }
}

/** `?, ?, ?` for a list of `n` parameters (`IN (...)`). */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/** SQL text that depends on a count (of ids in a list), built once for each count asked. */
export function perCount(build: (n: number) => string): (n: number) => string {
  const built = new Map<number, string>();
  return (n) => {
    let text = built.get(n);
    if (text === undefined) built.set(n, (text = build(n)));
    return text;
  };
}

const PLAIN_TYPES = new Set(['varchar', 'text', 'integer', 'int']);

/**
 * How a column's non-null value is read, decided once per column. The driver's
 * prepareHydratedValue, except where its result is known to be the value itself (text and
 * integers; PostgreSQL's timestamptz, json and jsonb, which pg has already parsed) or a plain parse
 * (SQLite's JSON text, and its datetime text in the one format TypeORM writes).
 */
function hydratorFor(
  dataSource: DataSource,
  dialect: DatabaseKind,
  column: ColumnMetadata,
): (value: unknown) => unknown {
  const driver = dataSource.driver;
  const viaDriver = (value: unknown): unknown => driver.prepareHydratedValue(value, column);
  if (column.transformer) return viaDriver;
  const type = String(column.type);
  if (PLAIN_TYPES.has(type)) return (value) => value;
  if (dialect === 'postgres') {
    if (type === 'timestamptz')
      return (value) => (value instanceof Date ? value : viaDriver(value));
    if (type === 'jsonb' || type === 'json') {
      return (value) => (typeof value === 'string' ? viaDriver(value) : value);
    }
    return viaDriver;
  }
  if (type === 'simple-json') {
    return (value) =>
      typeof value === 'string' ? (JSON.parse(value) as unknown) : viaDriver(value);
  }
  if (type === 'datetime') {
    // `YYYY-MM-DD HH:mm:ss.SSS` in UTC, as TypeORM stores a Date on SQLite.
    return (value) =>
      typeof value === 'string' && value.length === 23 && value.charCodeAt(10) === 32
        ? new Date(`${value.slice(0, 10)}T${value.slice(11)}Z`)
        : viaDriver(value);
  }
  return viaDriver;
}
