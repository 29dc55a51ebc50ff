/**
 * `npm run migration:generate -- <Name>`: compares the entities with the schema the existing
 * migrations build, once per dialect, and writes the difference as a new migration in
 * src/database/migrations/<dialect>/. Review the files and register them in
 * src/database/migrations/index.ts.
 *
 * Each dialect runs in a child process because a process has one dialect: `dataSourceOptions`
 * gives the entities' dialect-dependent columns its types (src/database/column-types.ts), those
 * its entity glob loads afterwards too. PostgreSQL needs a server: MIGRATION_POSTGRES_URL
 * (default postgres://postgres@127.0.0.1:5432/test) is used to create a scratch database, dropped
 * at the end, as the scratch SQLite file is, whether the run succeeds or not.
 *
 * When reviewing a SQLite file, check the `down` of any table rebuild: TypeORM renames the table
 * away first (`ALTER TABLE "x" RENAME TO "temporary_x"`), and SQLite then repoints the other
 * tables' foreign keys at "temporary_x" before dropping it. Migration 1763700005000 shows a
 * rebuild that keeps the table's name.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { format, resolveConfig } from 'prettier';
import { DataSource } from 'typeorm';

const ADMIN_URL = process.env.MIGRATION_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function className(name: string, timestamp: number): string {
  const pascal = name.replace(/(^|[-_\s]+)([a-zA-Z0-9])/g, (_m, _s, c: string) => c.toUpperCase());
  return `${pascal}${timestamp}`;
}

/** Where a dialect's migration of this run is written. */
function migrationFile(dialect: string, name: string, timestamp: number): string {
  const kebab = name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  return join(
    __dirname,
    '..',
    'src',
    'database',
    'migrations',
    dialect,
    `${timestamp}-${kebab}.ts`,
  );
}

function render(cls: string, up: string[], down: string[]): string {
  const lines = (qs: string[]) =>
    qs.map((q) => `    await q.query(${JSON.stringify(q)});`).join('\n') || '    // nothing';
  return `import { MigrationInterface, QueryRunner } from 'typeorm';

export class ${cls} implements MigrationInterface {
  name = '${cls}';

  async up(q: QueryRunner): Promise<void> {
${lines(up)}
  }

  async down(q: QueryRunner): Promise<void> {
${lines(down)}
  }
}
`;
}

/** In the child: diff one dialect and write the file. */
async function generate(
  dialect: 'sqlite' | 'postgres',
  name: string,
  timestamp: number,
): Promise<void> {
  // dataSourceOptions gives the entities' column types this dialect (column-types.ts).
  const { dataSourceOptions } = await import('../src/database/data-source-options');
  const { parseDatabaseUrl } = await import('../src/config/app-config');
  const parsed = parseDatabaseUrl(process.env.DATABASE_URL!);
  if (typeof parsed === 'string') throw new Error(parsed);
  const ds = new DataSource(dataSourceOptions(parsed));
  await ds.initialize();
  try {
    await ds.runMigrations({ transaction: 'each' });
    const sql = await ds.driver.createSchemaBuilder().log();
    const up = sql.upQueries.map((q) => q.query);
    const down = sql.downQueries.reverse().map((q) => q.query);
    if (up.length === 0) {
      console.log(`${dialect}: the entities match the migrations; nothing to generate`);
      return;
    }
    const file = migrationFile(dialect, name, timestamp);
    // Formatted as `npm run lint` expects, so the file can be committed after review.
    const source = render(className(name, timestamp), up, down);
    const options = await resolveConfig(file);
    writeFileSync(file, await format(source, { ...options, filepath: file }));
    console.log(`${dialect}: wrote ${file} (${up.length} statements)`);
  } finally {
    await ds.destroy();
  }
}

async function scratchPostgres(): Promise<{ url: string; drop: () => Promise<void> }> {
  const db = `migration_scratch_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${db}"`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${db}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
      await c.end();
    },
  };
}

async function main(): Promise<void> {
  const [name, childDialect, childTimestamp] = process.argv.slice(2);
  if (!name || !/^[A-Za-z][A-Za-z0-9]*$/.test(name)) {
    console.error('Usage: npm run migration:generate -- <PascalCaseName>');
    process.exit(2);
  }
  if (childDialect === 'sqlite' || childDialect === 'postgres') {
    await generate(childDialect, name, Number(childTimestamp));
    return;
  }
  const timestamp = Date.now();
  const sqliteDir = mkdtempSync(join(tmpdir(), 'migration-'));
  const pg = await scratchPostgres();
  let failed = 0;
  try {
    for (const [dialect, url] of [
      ['sqlite', `sqlite:${join(sqliteDir, 'scratch.sqlite')}`],
      ['postgres', pg.url],
    ] as const) {
      const child = spawnSync(
        process.execPath,
        [
          require.resolve('ts-node/dist/bin.js'),
          '--transpile-only',
          __filename,
          name,
          dialect,
          String(timestamp),
        ],
        {
          stdio: 'inherit',
          env: {
            ...process.env,
            DATABASE_URL: url,
            ENCRYPTION_KEY: randomBytes(32).toString('base64'),
          },
        },
      );
      if (child.status !== 0) {
        failed = child.status ?? 1;
        break;
      }
    }
  } finally {
    rmSync(sqliteDir, { recursive: true, force: true });
    await pg.drop();
  }
  if (failed !== 0) process.exit(failed);
  if (['sqlite', 'postgres'].some((d) => existsSync(migrationFile(d, name, timestamp)))) {
    console.log('Register the new classes in src/database/migrations/index.ts, then review them.');
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
