import { DataSource, QueryRunner } from 'typeorm';
import { parseDatabaseUrl } from '../../src/config/app-config';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { postgresMigrations, sqliteMigrations } from '../../src/database/migrations';
import { TestApp, startTestApp } from '../helpers/test-app';
import { TEST_DIALECT, TestDatabase, createTestDatabase } from '../helpers/test-database';

/** Every table, as `information_schema` or `sqlite_master` lists it. */
async function tableNames(q: { query(sql: string): Promise<any> }): Promise<string[]> {
  const rows: { name: string }[] = await q.query(
    TEST_DIALECT === 'postgres'
      ? `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`
      : `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`,
  );
  return rows.map((r) => r.name).sort();
}

/** A literal for hand-written SQL that both dialects read the same way. */
function literal(value: string | number | boolean | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean')
    return TEST_DIALECT === 'postgres' ? String(value) : value ? '1' : '0';
  return typeof value === 'number' ? String(value) : `'${value.replace(/'/g, "''")}'`;
}

function insert(table: string, row: Record<string, string | number | boolean | null>): string {
  const columns = Object.keys(row).map((c) => `"${c}"`);
  return `INSERT INTO "${table}" (${columns.join(', ')}) VALUES (${Object.values(row).map(literal).join(', ')})`;
}

/**
 * A fresh database per describe block that `open(count)` builds with the first `count`
 * migrations (a new connection each time, the previous one closed), dropped after the block.
 */
function migrationsUpTo(migrations: (typeof sqliteMigrations)[number][]) {
  let database: TestDatabase;
  let dataSource: DataSource | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });
  const open = async (count: number): Promise<DataSource> => {
    await dataSource?.destroy();
    const config = parseDatabaseUrl(database.url);
    if (typeof config === 'string') throw new Error(config);
    dataSource = new DataSource({
      ...dataSourceOptions(config),
      entities: [],
      migrations: migrations.slice(0, count),
    });
    return dataSource.initialize();
  };
  return { open };
}

describe(`schema (${TEST_DIALECT})`, () => {
  describe('entities and migrations', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t.close());

    it('builds with the migrations exactly the schema the entities describe', async () => {
      // What `npm run migration:generate` would write: any statement here is drift between an
      // entity and the migrations (a column, an index, a foreign key or a check).
      const sql = await t.dataSource.driver.createSchemaBuilder().log();
      expect(sql.upQueries.map((q) => q.query)).toEqual([]);
    });

    it('has an entity for every table the migrations create', async () => {
      const tables = await t.db.read((m) => tableNames(m));
      const entityTables = t.dataSource.entityMetadatas.map((e) => e.tableName);
      expect(tables).toEqual(['typeorm_migrations', ...entityTables].sort());
    });

    it('declares every index with its columns in order and its WHERE clause', async () => {
      // TypeORM's diff compares an index's name, uniqueness and set of columns, but not their
      // order nor a partial index's condition; both matter to the queries the index serves.
      // PostgreSQL spells a comparison of a varchar with a literal with casts: `(status)::text =
      // 'pending'::text`.
      const normalize = (sql: string) =>
        sql
          .replace(/::(text|character varying)/g, '')
          .replace(/["()]/g, '')
          .replace(/\s+/g, ' ')
          .trim();
      const describeIndex = (table: string, name: string, columns: string, where?: string) =>
        `${table}.${name} (${normalize(columns)})${where ? ` WHERE ${normalize(where)}` : ''}`;
      const rows: { table: string; name: string; sql: string }[] = await t.db.read((m) =>
        m.query(
          TEST_DIALECT === 'postgres'
            ? `SELECT tablename AS "table", indexname AS name, indexdef AS sql FROM pg_indexes
               WHERE schemaname = 'public' AND indexname NOT IN (SELECT conname FROM pg_constraint)`
            : `SELECT tbl_name AS "table", name, sql FROM sqlite_master
               WHERE type = 'index' AND sql IS NOT NULL`,
        ),
      );
      const entityTables = t.dataSource.entityMetadatas.map((e) => e.tableName);
      const inDatabase = rows
        .filter(({ table }) => entityTables.includes(table))
        .map(({ table, name, sql }) => {
          const [, columns, where] = /\(([^)]*)\)(?:\s+WHERE\s+(.*))?$/.exec(sql)!;
          return describeIndex(table, name, columns, where);
        });
      const inEntities = t.dataSource.entityMetadatas.flatMap((e) =>
        e.indices.map((i) =>
          describeIndex(
            e.tableName,
            i.name,
            i.columns.map((c) => c.databaseName).join(', '),
            i.where,
          ),
        ),
      );
      expect(inEntities.sort()).toEqual(inDatabase.sort());
    });

    it('refuses a row that points at a missing organization', async () => {
      const now = '2025-01-02 03:04:05.678';
      await expect(
        t.db.transaction((m) =>
          m.query(
            insert('products', {
              id: 'prod_missing_org',
              organization_id: 'org_missing',
              name: 'Orphan',
              description: null,
              metadata: '{}',
              created_at: now,
              updated_at: now,
            }),
          ),
        ),
      ).rejects.toThrow(/foreign key/i);
    });

    it('refuses an external account status outside the list', async () => {
      const tenant = await t.createTenant();
      const now = '2025-01-02 03:04:05.678';
      await expect(
        t.db.transaction((m) =>
          m.query(
            insert('external_bank_accounts', {
              ...bankAccount('ba_bad_status', tenant.organizationId, now),
              status: 'closed',
            }),
          ),
        ),
      ).rejects.toThrow(/check constraint/i);
    });
  });

  describe('migration 1763700005000 (named constraints)', () => {
    const NAME = 'NamedConstraints1763700005000';
    const migrations = TEST_DIALECT === 'postgres' ? postgresMigrations : sqliteMigrations;
    const index = migrations.findIndex((m) => m.name === NAME);
    const { open } = migrationsUpTo(migrations);

    /** Every row of every table, and the names of each table's indexes and constraints. */
    async function snapshot(ds: DataSource) {
      const q: QueryRunner = ds.createQueryRunner();
      try {
        const result: Record<string, unknown> = {};
        for (const name of await tableNames(q)) {
          if (name === 'typeorm_migrations') continue;
          const table = (await q.getTable(name))!;
          result[name] = {
            rows: await q.query(`SELECT * FROM "${name}" ORDER BY "id"`),
            indexes: table.indices.map((i) => `${i.name}${i.isUnique ? ' unique' : ''}`).sort(),
            foreignKeys: table.foreignKeys
              .map((fk) => `${fk.columnNames.join()} -> ${fk.referencedTableName}`)
              .sort(),
          };
        }
        return result;
      } finally {
        await q.release();
      }
    }

    async function constraintNames(ds: DataSource, name: string) {
      const q = ds.createQueryRunner();
      try {
        const table = (await q.getTable(name))!;
        return {
          foreignKeys: table.foreignKeys.map((fk) => fk.name).sort(),
          checks: table.checks.map((c) => c.name).sort(),
        };
      } finally {
        await q.release();
      }
    }

    it('keeps every row, index and foreign key when it runs and when it is undone', async () => {
      expect(index).toBeGreaterThan(0);
      let ds = await open(index);
      await ds.runMigrations({ transaction: 'each' });
      const now = '2025-01-02 03:04:05.678';
      const rows: [string, Record<string, string | number | null>][] = [
        ['organizations', { id: 'org_1', name: "O'Brien & Co", created_at: now, updated_at: now }],
        [
          'api_keys',
          {
            id: 'key_1',
            organization_id: 'org_1',
            key_hash: 'a'.repeat(64),
            mode: 'live',
            last4: 'abcd',
            created_at: now,
            revoked_at: null,
          },
        ],
        [
          'products',
          {
            id: 'prod_1',
            organization_id: 'org_1',
            name: 'API',
            description: null,
            metadata: '{"tier":"gold"}',
            created_at: now,
            updated_at: now,
          },
        ],
        [
          'billable_metrics',
          {
            id: 'bm_1',
            organization_id: 'org_1',
            product_id: 'prod_1',
            name: 'Tokens',
            description: 'Tokens used',
            unit: 'token',
            aggregation: 'SUM',
            value_property: '$.tokens',
            event_type: null,
            created_at: now,
            updated_at: now,
          },
        ],
        [
          'plans',
          {
            id: 'plan_1',
            organization_id: 'org_1',
            product_id: 'prod_1',
            name: 'Pro',
            invoice_display_name: 'Pro plan',
            description: null,
            billing_interval: 'monthly',
            currency: 'EUR',
            tax_behavior: 'exclusive',
            tax_code: null,
            tax_rate: '19.5',
            created_at: now,
            updated_at: now,
            deleted_at: null,
          },
        ],
        ...['price_1', 'price_2'].map((id, i): [string, Record<string, string | number | null>] => [
          'prices',
          {
            id,
            organization_id: 'org_1',
            billable_metric_id: 'bm_1',
            plan_id: i === 0 ? 'plan_1' : null,
            plan_position: i === 0 ? 0 : null,
            model: 'per_unit',
            invoice_display_name: 'Tokens',
            properties: '{"unitAmount":"0.001"}',
            created_at: now,
            updated_at: now,
            deleted_at: null,
          },
        ]),
        ['external_bank_accounts', bankAccount('ba_1', 'org_1', now)],
        ['external_bank_accounts', { ...bankAccount('ba_2', 'org_1', now), deleted_at: now }],
        [
          'idempotency_records',
          {
            id: 'idem_1',
            organization_id: 'org_1',
            idempotency_key: 'k-1',
            request_method: 'POST',
            request_path: '/v0/products',
            request_hash: 'b'.repeat(64),
            request_id: 'req_1',
            state: 'complete',
            locked_until: null,
            response_status: 201,
            response_headers: '{"content-type":"application/json"}',
            response_body: '{"id":"prod_1"}',
            created_at: now,
            expires_at: now,
          },
        ],
      ];
      for (const [table, row] of rows) await ds.query(insert(table, row));
      const before = await snapshot(ds);
      expect(Object.keys(before).length).toBeGreaterThanOrEqual(8);

      ds = await open(index + 1);
      expect((await ds.runMigrations({ transaction: 'each' })).map((m) => m.name)).toEqual([NAME]);
      expect(await snapshot(ds)).toEqual(before);
      expect(await constraintNames(ds, 'prices')).toEqual({
        foreignKeys: [
          'prices_billable_metric_id_fkey',
          'prices_organization_id_fkey',
          'prices_plan_id_fkey',
        ],
        checks: [],
      });
      expect((await constraintNames(ds, 'external_bank_accounts')).checks).toEqual([
        'external_bank_accounts_account_holder_type_check',
        'external_bank_accounts_status_check',
      ]);
      // The rebuilt tables still enforce their foreign keys.
      await expect(
        ds.query(insert('plans', { ...rows[4][1], id: 'plan_2', product_id: 'prod_missing' })),
      ).rejects.toThrow(/foreign key/i);

      await ds.undoLastMigration({ transaction: 'each' });
      expect(await snapshot(ds)).toEqual(before);
      await expect(
        ds.query(
          insert('external_bank_accounts', { ...bankAccount('ba_3', 'org_1', now), status: 'x' }),
        ),
      ).rejects.toThrow(/check constraint/i);

      expect((await ds.runMigrations({ transaction: 'each' })).map((m) => m.name)).toEqual([NAME]);
      expect(await snapshot(ds)).toEqual(before);
      expect((await constraintNames(ds, 'plans')).foreignKeys).toEqual([
        'plans_organization_id_fkey',
        'plans_product_id_fkey',
      ]);
    });
  });

  describe('migration 1763700007000 (plan counts)', () => {
    const migrations = TEST_DIALECT === 'postgres' ? postgresMigrations : sqliteMigrations;
    const index = migrations.findIndex((m) => m.name === 'PlanCounts1763700007000');
    const { open } = migrationsUpTo(migrations);

    it('counts the plans already stored, per organization, product and state', async () => {
      expect(index).toBeGreaterThan(0);
      let ds = await open(index);
      await ds.runMigrations({ transaction: 'each' });
      const now = '2025-01-02 03:04:05.678';
      await ds.query(
        insert('organizations', { id: 'org_1', name: 'One', created_at: now, updated_at: now }),
      );
      for (const id of ['prod_1', 'prod_2']) {
        await ds.query(
          insert('products', {
            id,
            organization_id: 'org_1',
            name: 'API',
            description: null,
            metadata: '{}',
            created_at: now,
            updated_at: now,
          }),
        );
      }
      const plans: [string, string | null][] = [
        ['prod_1', null],
        ['prod_1', null],
        ['prod_1', now],
        ['prod_2', null],
      ];
      for (const [i, [product, deletedAt]] of plans.entries()) {
        await ds.query(
          insert('plans', {
            id: `plan_${i}`,
            organization_id: 'org_1',
            product_id: product,
            name: 'Pro',
            invoice_display_name: 'Pro',
            description: null,
            billing_interval: 'monthly',
            currency: 'USD',
            tax_behavior: 'exclusive',
            tax_code: null,
            tax_rate: '0',
            created_at: now,
            updated_at: now,
            deleted_at: deletedAt,
          }),
        );
      }
      ds = await open(index + 1);
      await ds.runMigrations({ transaction: 'each' });
      const rows: { product_id: string; deleted: number | string; plans: number | string }[] =
        await ds.query(
          'SELECT "product_id", "deleted", SUM("plans") AS "plans" FROM "plan_counts" ' +
            'GROUP BY "product_id", "deleted" ORDER BY "product_id", "deleted"',
        );
      expect(rows.map((r) => [r.product_id, Number(r.deleted), Number(r.plans)])).toEqual([
        ['prod_1', 0, 2],
        ['prod_1', 1, 1],
        ['prod_2', 0, 1],
      ]);
      await ds.undoLastMigration({ transaction: 'each' });
      expect(await tableNames(ds)).not.toContain('plan_counts');
    });
  });

  describe('migration 1763700012000 (modes)', () => {
    const migrations = TEST_DIALECT === 'postgres' ? postgresMigrations : sqliteMigrations;
    const index = migrations.findIndex((m) => m.name === 'Modes1763700012000');
    const { open } = migrationsUpTo(migrations);
    const now = '2025-01-02 03:04:05.678';
    const live = (v: unknown) => v === true || v === 1;

    it('makes every existing row live, keeps the plan counts, and holds uniqueness per mode', async () => {
      expect(index).toBeGreaterThan(0);
      let ds = await open(index);
      await ds.runMigrations({ transaction: 'each' });
      await ds.query(
        insert('organizations', { id: 'org_1', name: 'One', created_at: now, updated_at: now }),
      );
      await ds.query(
        insert('products', {
          id: 'prod_1',
          organization_id: 'org_1',
          name: 'API',
          description: null,
          metadata: '{}',
          created_at: now,
          updated_at: now,
        }),
      );
      await ds.query(
        insert('plan_counts', {
          organization_id: 'org_1',
          product_id: 'prod_1',
          deleted: 0,
          slot: 3,
          plans: 7,
        }),
      );
      await ds.query(insert('external_bank_accounts', bankAccount('ba_1', 'org_1', now)));

      ds = await open(index + 1);
      expect((await ds.runMigrations({ transaction: 'each' })).map((m) => m.name)).toEqual([
        'Modes1763700012000',
      ]);
      const [product] = await ds.query('SELECT "livemode" FROM "products"');
      const [account] = await ds.query('SELECT "livemode" FROM "external_bank_accounts"');
      expect([live(product.livemode), live(account.livemode)]).toEqual([true, true]);
      const counts = await ds.query(
        'SELECT "organization_id", "livemode", "product_id", "deleted", "slot", "plans" FROM "plan_counts"',
      );
      expect(
        counts.map((c: Record<string, unknown>) => [
          c.product_id,
          live(c.livemode),
          Number(c.slot),
          Number(c.plans),
        ]),
      ).toEqual([['prod_1', true, 3, 7]]);
      // The same account once per mode: a test-mode copy is allowed, a second live one is not.
      const testCopy = {
        ...bankAccount('ba_2', 'org_1', now),
        fingerprint: 'ba_1'.padEnd(64, '0'),
      };
      await ds.query(insert('external_bank_accounts', { ...testCopy, livemode: false }));
      await expect(
        ds.query(
          insert('external_bank_accounts', {
            ...bankAccount('ba_3', 'org_1', now),
            fingerprint: 'ba_1'.padEnd(64, '0'),
          }),
        ),
      ).rejects.toThrow(/unique/i);

      await ds.query('DELETE FROM "external_bank_accounts" WHERE "id" = \'ba_2\'');
      await ds.undoLastMigration({ transaction: 'each' });
      const [after] = await ds.query('SELECT * FROM "products"');
      expect(after.livemode).toBeUndefined();
      const [count] = await ds.query('SELECT "plans" FROM "plan_counts"');
      expect(Number(count.plans)).toBe(7);
    });
  });

  describe('migration 1763700013000 (verification)', () => {
    const NAME = 'Verification1763700013000';
    const migrations = TEST_DIALECT === 'postgres' ? postgresMigrations : sqliteMigrations;
    const index = migrations.findIndex((m) => m.name === NAME);
    const { open } = migrationsUpTo(migrations);
    const now = '2025-01-02 03:04:05.678';

    it('makes the test-mode accounts already pending due for the sandbox, and nothing else', async () => {
      expect(index).toBeGreaterThan(0);
      let ds = await open(index);
      await ds.runMigrations({ transaction: 'each' });
      await ds.query(
        insert('organizations', { id: 'org_1', name: 'One', created_at: now, updated_at: now }),
      );
      const accounts: [string, boolean, string, string | null][] = [
        ['ba_test_pending', false, 'pending', null],
        ['ba_test_verified', false, 'verified', null],
        ['ba_test_deleted', false, 'pending', now],
        ['ba_live_pending', true, 'pending', null],
      ];
      for (const [id, livemode, status, deletedAt] of accounts) {
        await ds.query(
          insert('external_bank_accounts', {
            ...bankAccount(id, 'org_1', now),
            livemode,
            status,
            deleted_at: deletedAt,
          }),
        );
      }

      ds = await open(index + 1);
      expect((await ds.runMigrations({ transaction: 'each' })).map((m) => m.name)).toEqual([NAME]);
      const rows: { id: string; submission: number | string; due: unknown }[] = await ds.query(
        `SELECT "id", "verification_submission" AS "submission", "verification_due_at" AS "due"
           FROM "external_bank_accounts" ORDER BY "id"`,
      );
      expect(rows.map((r) => [r.id, Number(r.submission), r.due !== null])).toEqual([
        ['ba_live_pending', 1, false],
        ['ba_test_deleted', 1, false],
        ['ba_test_pending', 1, true],
        ['ba_test_verified', 1, false],
      ]);

      await ds.undoLastMigration({ transaction: 'each' });
      const [after] = await ds.query(
        `SELECT * FROM "external_bank_accounts" WHERE "id" = 'ba_test_pending'`,
      );
      expect(after.verification_due_at).toBeUndefined();
      expect(after.status).toBe('pending');
      expect((await ds.runMigrations({ transaction: 'each' })).map((m) => m.name)).toEqual([NAME]);
    });
  });

  describe('migration 1763700006000 (list indexes)', () => {
    const NAME = 'ListIndexes1763700006000';
    const migrations = TEST_DIALECT === 'postgres' ? postgresMigrations : sqliteMigrations;
    const index = migrations.findIndex((m) => m.name === NAME);
    const { open } = migrationsUpTo(migrations);

    /** Every index the migrations made, as `name: definition`. */
    async function indexes(ds: DataSource): Promise<string[]> {
      const rows: { name: string; sql: string }[] = await ds.query(
        TEST_DIALECT === 'postgres'
          ? `SELECT indexname AS name, indexdef AS sql FROM pg_indexes
             WHERE schemaname = 'public' AND indexname NOT IN (SELECT conname FROM pg_constraint)`
          : `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`,
      );
      return rows.map((r) => `${r.name}: ${r.sql}`).sort();
    }
    const onlyIn = (a: string[], b: string[]) =>
      a.filter((i) => !b.includes(i)).map((i) => i.slice(0, i.indexOf(':')));

    it('replaces the list indexes, and puts the old ones back when it is undone', async () => {
      expect(index).toBeGreaterThan(0);
      let ds = await open(index);
      await ds.runMigrations({ transaction: 'each' });
      const before = await indexes(ds);

      ds = await open(index + 1);
      expect((await ds.runMigrations({ transaction: 'each' })).map((m) => m.name)).toEqual([NAME]);
      const after = await indexes(ds);
      expect(onlyIn(before, after)).toEqual([
        'ix_external_bank_accounts_org_created',
        'ix_plans_org_live_created',
        'ix_plans_org_product',
        'ix_prices_billable_metric',
      ]);
      expect(onlyIn(after, before)).toEqual([
        'ix_external_bank_accounts_org_country_live',
        'ix_external_bank_accounts_org_currency_live',
        'ix_external_bank_accounts_org_live',
        'ix_external_bank_accounts_org_status_live',
        'ix_plans_org_created',
        'ix_plans_org_live',
        'ix_plans_org_product_created',
        'ix_plans_org_product_live',
        'ix_prices_org_live',
        'ix_prices_org_metric_created',
        'ix_prices_org_metric_live',
        'ix_prices_org_plan_created',
        'ix_prices_org_plan_live',
      ]);

      await ds.undoLastMigration({ transaction: 'each' });
      expect(await indexes(ds)).toEqual(before);
      expect((await ds.runMigrations({ transaction: 'each' })).map((m) => m.name)).toEqual([NAME]);
      expect(await indexes(ds)).toEqual(after);
    });
  });
});

function bankAccount(id: string, organizationId: string, now: string) {
  return {
    id,
    organization_id: organizationId,
    country_code: 'DE',
    bank_name: 'Bank',
    currency: 'EUR',
    account_number_encrypted: `v1:nonce:${id}:tag`,
    last4: '3000',
    fingerprint: id.padEnd(64, '0'),
    routing_number: 'COBADEFFXXX',
    account_holder_name: 'Jane Doe',
    account_holder_type: 'individual',
    status: 'pending',
    status_reason: null,
    metadata: '{}',
    created_at: now,
    updated_at: now,
    deleted_at: null as string | null,
  };
}
