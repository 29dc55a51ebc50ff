import { TEST_DIALECT } from './test-database';
import { TestApp } from './test-app';

/**
 * Proof that a statement the service really sends is one index search (the events list, the
 * webhook lists, the dispatcher's claim, the retention sweep; test/database/list-indexes.e2e-spec.ts
 * applies the same rules to the offset lists' pages and counts): the SQL is captured from
 * TypeORM's logger and explained with its own parameters.
 *
 * - SQLite: every step is `SEARCH ... USING [COVERING] INDEX` (no `SCAN`), no temporary B-tree
 *   (a sort), and every column the WHERE clause compares (`=`, `<`, `<=`, `IN`, `IS NULL`) is a
 *   constraint of the search or in the WHERE of the partial index searched: no row is read only
 *   to be dropped. (A COUNT(DISTINCT id)'s own B-tree of counted ids is not a sort.)
 * - PostgreSQL, with sequential scans and sorts (incremental ones too) disabled so that a small
 *   test table cannot hide a missing index: no `Seq Scan`, no `Sort` node, no `Filter` (but
 *   the recheck of a boolean condition the index search applied, see rechecksIndexedBoolean).
 */

export interface Captured {
  sql: string;
  params: unknown[];
}

/** The statements `work` sends that `keep` selects, in order, without repeats. */
export async function captureSql(
  t: TestApp,
  work: () => Promise<unknown>,
  keep: (sql: string) => boolean,
): Promise<Captured[]> {
  const spy = jest.spyOn(t.dataSource.logger, 'logQuery');
  try {
    await work();
    const seen = new Set<string>();
    return spy.mock.calls
      .map(([sql, params]) => ({ sql, params: params ?? [] }))
      .filter(({ sql }) => keep(sql))
      .filter(({ sql }) => !seen.has(sql) && !!seen.add(sql));
  } finally {
    spy.mockRestore();
  }
}

/** The columns the WHERE clause compares to a parameter, a list or NULL. */
function comparedColumns(sql: string): string[] {
  const where = /\bWHERE\b(.*?)(\bORDER BY\b|\bLIMIT\b|\bFOR UPDATE\b|$)/is.exec(sql)?.[1] ?? '';
  const columns = [
    ...where.matchAll(/"(\w+)"\s*(?:(?:=|<=?|>=?)\s*(?:\?|\$\d+)|IS NULL|IN\s*\()/gi),
  ].map((m) => m[1]);
  return [...new Set(columns)];
}

/** SQLite: the columns named in each partial index's WHERE clause. */
async function partialIndexColumns(t: TestApp): Promise<Map<string, string[]>> {
  const indexes: { name: string; sql: string }[] = await t.dataSource.query(
    `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`,
  );
  const columns = new Map<string, string[]>();
  for (const { name, sql } of indexes) {
    const where = /\bWHERE\b(.*)$/is.exec(sql)?.[1];
    if (where)
      columns.set(
        name,
        [...where.matchAll(/"(\w+)"/g)].map((m) => m[1]),
      );
  }
  return columns;
}

export interface PgNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PgNode[];
}

export function pgNodes(node: PgNode): PgNode[] {
  return [node, ...(node.Plans ?? []).flatMap(pgNodes)];
}

/**
 * True when a node's Filter only checks again, row by row, a boolean condition that the index
 * search below it already applied: PostgreSQL shows `"livemode" = true` searched in a bitmap
 * index as `Filter: livemode` on the Bitmap Heap Scan above it (a boolean column's condition is
 * kept as the column itself, which a bitmap scan rechecks). Every row the search found passes
 * it: none is read only to be dropped.
 */
export function rechecksIndexedBoolean(node: PgNode): boolean {
  const conditions = pgNodes(node)
    .map((n) => n['Index Cond'] ?? '')
    .join(' ');
  return (node.Filter ?? '')
    .split(' AND ')
    .map((c) => c.replace(/^\(+|\)+$/g, '').trim())
    .every((c) => {
      const negated = /^NOT (\w+)$/.exec(c);
      const [column, value] = negated ? [negated[1], 'false'] : [c, 'true'];
      return /^\w+$/.test(column) && conditions.includes(`(${column} = ${value})`);
    });
}

/** What keeps `query` from being one index search, with its plan as text. */
export async function planProblems(
  t: TestApp,
  query: Captured,
): Promise<{ plan: string; problems: string[] }> {
  const problems: string[] = [];
  if (TEST_DIALECT === 'sqlite') {
    const rows: { detail: string }[] = await t.db.read((m) =>
      m.query(`EXPLAIN QUERY PLAN ${query.sql}`, query.params),
    );
    const details = rows.map((r) => r.detail);
    for (const detail of details) {
      if (/^SCAN /.test(detail)) problems.push(`full scan: ${detail}`);
      // A COUNT(DISTINCT id) keeps its own B-tree of what it counted: not a sort of rows.
      if (/TEMP B-TREE FOR .*ORDER BY/.test(detail)) problems.push(`sorts: ${detail}`);
    }
    const searches = details
      .map((d) => /^SEARCH (\S+) USING (?:COVERING )?INDEX (\S+)(?: \((.*)\))?$/.exec(d))
      .filter((m): m is RegExpExecArray => m !== null);
    if (searches.length === 0) problems.push('no index search');
    const partial = await partialIndexColumns(t);
    // The statement's own table (or its alias); a DELETE's plan also shows the searches of the
    // tables whose foreign keys it checks, which compare other columns.
    const [, table, alias] = /\bFROM "(\w+)"(?:\s+"(\w+)")?/i.exec(query.sql) ?? [];
    for (const [, searched, index, constraints = ''] of searches) {
      if (searched !== table && searched !== alias) continue;
      const used = new Set([
        ...constraints.split(' AND ').map((c) => c.replace(/^\(/, '').split(/[=<>,]/)[0]),
        ...(partial.get(index) ?? []),
      ]);
      const left = comparedColumns(query.sql).filter((c) => !used.has(c));
      if (left.length > 0) {
        problems.push(
          `${index} does not answer ${left.join(', ')}: those rows are read and dropped`,
        );
      }
    }
    return { plan: details.join('\n'), problems };
  }
  {
    const nodes = pgNodes(await postgresPlan(t, query));
    for (const n of nodes) {
      if (n['Node Type'] === 'Seq Scan') problems.push('full scan: Seq Scan');
      if (/Sort$/.test(n['Node Type'])) problems.push(`sorts: ${n['Node Type']}`);
      if (n.Filter && !rechecksIndexedBoolean(n)) {
        problems.push(`${n['Node Type']} reads rows and drops them: ${n.Filter}`);
      }
    }
    if (!nodes.some((n) => n['Index Name'])) problems.push('no index search');
    const plan = nodes
      .map((n) =>
        [n['Node Type'], n['Index Name'], n['Index Cond'], n.Filter && `filter ${n.Filter}`]
          .filter(Boolean)
          .join(' '),
      )
      .join('\n');
    return { plan, problems };
  }
}

/**
 * The top node of PostgreSQL's plan of `query`, planned with sequential scans and sorts
 * discouraged (in a transaction rolled back after), so that a missing index shows as a Seq Scan
 * and any sort as a Sort: PostgreSQL would otherwise pick them freely on a test's small tables.
 */
export async function postgresPlan(t: TestApp, query: Captured): Promise<PgNode> {
  const runner = t.dataSource.createQueryRunner();
  try {
    await runner.startTransaction();
    // As the webhook dispatcher's claim is planned (test/webhooks/stale-statistics.e2e-spec.ts).
    await t.db.indexSearchesOnly(runner.manager);
    const [row]: { 'QUERY PLAN': [{ Plan: PgNode }] }[] = await runner.query(
      `EXPLAIN (FORMAT JSON) ${query.sql}`,
      query.params,
    );
    return row['QUERY PLAN'][0].Plan;
  } finally {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    await runner.release();
  }
}

/** Throws with every query, its parameters and plan when one of `queries` is not an index search. */
export async function expectIndexSearches(
  t: TestApp,
  label: string,
  queries: Captured[],
): Promise<void> {
  const failures: string[] = [];
  for (const query of queries) {
    const { plan, problems } = await planProblems(t, query);
    if (problems.length > 0) {
      failures.push(
        [
          `${label}: ${problems.join('; ')}`,
          `  query:  ${query.sql}`,
          `  params: ${JSON.stringify(query.params.slice(0, 8))}${query.params.length > 8 ? ` and ${query.params.length - 8} more` : ''}`,
          `  plan:\n${plan.replace(/^/gm, '    ')}`,
        ].join('\n'),
      );
    }
  }
  // Thrown rather than compared, so the queries and plans print as they are, quotes unescaped.
  if (failures.length > 0) throw new Error(failures.join('\n\n'));
}
