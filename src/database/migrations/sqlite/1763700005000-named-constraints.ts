import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Gives every foreign key and CHECK on SQLite the name PostgreSQL already gave it
 * (`<table>_<column>_fkey`, `<table>_<column>_check`), so the entities describe both dialects.
 *
 * The earlier migrations declared them inline (`REFERENCES ...`, `CHECK (...)`), which leaves them
 * unnamed on SQLite. TypeORM's schema builder matches constraints by name, so it could never see
 * these as the entities' relations and checks: it reported them as drift, and a generated
 * migration would have rebuilt the tables without the checks. SQLite cannot rename or add a
 * constraint, so each table is built again with the same columns, rows and indexes (see
 * `rebuild`); `foreign_key_check` then proves every row still points at a row.
 */
export class NamedConstraints1763700005000 implements MigrationInterface {
  name = 'NamedConstraints1763700005000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of TABLES) await rebuild(q, table, true);
    await assertForeignKeys(q);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of TABLES) await rebuild(q, table, false);
    await assertForeignKeys(q);
  }
}

interface TableDefinition {
  name: string;
  columns: string[];
  /** [name, definition]: named in `up`, unnamed (as before) in `down`. */
  constraints: [string, string][];
  indexes: string[];
}

function organizationKey(table: string): [string, string] {
  return [
    `${table}_organization_id_fkey`,
    `FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id")`,
  ];
}

const TABLES: TableDefinition[] = [
  {
    name: 'api_keys',
    columns: [
      `"id" varchar(48) PRIMARY KEY NOT NULL`,
      `"organization_id" varchar(48) NOT NULL`,
      `"key_hash" varchar(64) NOT NULL`,
      `"mode" varchar(4) NOT NULL`,
      `"last4" varchar(4) NOT NULL`,
      `"created_at" datetime NOT NULL`,
      `"revoked_at" datetime`,
    ],
    constraints: [organizationKey('api_keys')],
    indexes: [
      `CREATE UNIQUE INDEX "ux_api_keys_key_hash" ON "api_keys" ("key_hash")`,
      `CREATE INDEX "ix_api_keys_organization" ON "api_keys" ("organization_id", "created_at")`,
    ],
  },
  {
    name: 'products',
    columns: [
      `"id" varchar(48) PRIMARY KEY NOT NULL`,
      `"organization_id" varchar(48) NOT NULL`,
      `"name" varchar(200) NOT NULL`,
      `"description" varchar(2000)`,
      `"metadata" text NOT NULL`,
      `"created_at" datetime NOT NULL`,
      `"updated_at" datetime NOT NULL`,
    ],
    constraints: [organizationKey('products')],
    indexes: [
      `CREATE INDEX "ix_products_org_created" ON "products" ("organization_id", "created_at", "id")`,
    ],
  },
  {
    name: 'billable_metrics',
    columns: [
      `"id" varchar(48) PRIMARY KEY NOT NULL`,
      `"organization_id" varchar(48) NOT NULL`,
      `"product_id" varchar(48) NOT NULL`,
      `"name" varchar(200) NOT NULL`,
      `"description" varchar(2000)`,
      `"unit" varchar(200) NOT NULL`,
      `"aggregation" varchar(20) NOT NULL`,
      `"value_property" varchar(200)`,
      `"event_type" varchar(200)`,
      `"created_at" datetime NOT NULL`,
      `"updated_at" datetime NOT NULL`,
    ],
    constraints: [
      organizationKey('billable_metrics'),
      [
        'billable_metrics_product_id_fkey',
        `FOREIGN KEY ("product_id") REFERENCES "products" ("id")`,
      ],
    ],
    indexes: [
      `CREATE INDEX "ix_billable_metrics_org_created" ON "billable_metrics" ("organization_id", "created_at", "id")`,
      `CREATE INDEX "ix_billable_metrics_org_product" ON "billable_metrics" ("organization_id", "product_id", "created_at", "id")`,
    ],
  },
  {
    name: 'plans',
    columns: [
      `"id" varchar(48) PRIMARY KEY NOT NULL`,
      `"organization_id" varchar(48) NOT NULL`,
      `"product_id" varchar(48) NOT NULL`,
      `"name" varchar(200) NOT NULL`,
      `"invoice_display_name" varchar(200) NOT NULL`,
      `"description" varchar(2000)`,
      `"billing_interval" varchar(20) NOT NULL`,
      `"currency" varchar(3) NOT NULL`,
      `"tax_behavior" varchar(10) NOT NULL`,
      `"tax_code" varchar(50)`,
      `"tax_rate" varchar(20) NOT NULL`,
      `"created_at" datetime NOT NULL`,
      `"updated_at" datetime NOT NULL`,
      `"deleted_at" datetime`,
    ],
    constraints: [
      organizationKey('plans'),
      ['plans_product_id_fkey', `FOREIGN KEY ("product_id") REFERENCES "products" ("id")`],
    ],
    indexes: [
      `CREATE INDEX "ix_plans_org_live_created" ON "plans" ("organization_id", "deleted_at", "created_at", "id")`,
      `CREATE INDEX "ix_plans_org_product" ON "plans" ("organization_id", "product_id", "deleted_at", "created_at", "id")`,
    ],
  },
  {
    name: 'prices',
    columns: [
      `"id" varchar(48) PRIMARY KEY NOT NULL`,
      `"organization_id" varchar(48) NOT NULL`,
      `"billable_metric_id" varchar(48) NOT NULL`,
      `"plan_id" varchar(48)`,
      `"plan_position" integer`,
      `"model" varchar(20) NOT NULL`,
      `"invoice_display_name" varchar(200) NOT NULL`,
      `"properties" text NOT NULL`,
      `"created_at" datetime NOT NULL`,
      `"updated_at" datetime NOT NULL`,
      `"deleted_at" datetime`,
    ],
    constraints: [
      organizationKey('prices'),
      [
        'prices_billable_metric_id_fkey',
        `FOREIGN KEY ("billable_metric_id") REFERENCES "billable_metrics" ("id")`,
      ],
      ['prices_plan_id_fkey', `FOREIGN KEY ("plan_id") REFERENCES "plans" ("id")`],
    ],
    indexes: [
      `CREATE INDEX "ix_prices_org_created" ON "prices" ("organization_id", "created_at", "id")`,
      `CREATE INDEX "ix_prices_plan" ON "prices" ("plan_id", "plan_position")`,
      `CREATE INDEX "ix_prices_billable_metric" ON "prices" ("billable_metric_id", "created_at", "id")`,
    ],
  },
  {
    name: 'external_bank_accounts',
    columns: [
      `"id" varchar(48) PRIMARY KEY NOT NULL`,
      `"organization_id" varchar(48) NOT NULL`,
      `"country_code" varchar(2) NOT NULL`,
      `"bank_name" varchar(200) NOT NULL`,
      `"currency" varchar(3) NOT NULL`,
      `"account_number_encrypted" text NOT NULL`,
      `"last4" varchar(4) NOT NULL`,
      `"fingerprint" varchar(64) NOT NULL`,
      `"routing_number" varchar(34) NOT NULL`,
      `"account_holder_name" varchar(200) NOT NULL`,
      `"account_holder_type" varchar(10) NOT NULL`,
      `"status" varchar(10) NOT NULL`,
      `"status_reason" varchar(500)`,
      `"metadata" text NOT NULL`,
      `"created_at" datetime NOT NULL`,
      `"updated_at" datetime NOT NULL`,
      `"deleted_at" datetime`,
    ],
    constraints: [
      [
        'external_bank_accounts_account_holder_type_check',
        `CHECK ("account_holder_type" IN ('individual', 'company'))`,
      ],
      [
        'external_bank_accounts_status_check',
        `CHECK ("status" IN ('pending', 'verified', 'errored'))`,
      ],
      organizationKey('external_bank_accounts'),
    ],
    indexes: [
      `CREATE INDEX "ix_external_bank_accounts_org_created" ON "external_bank_accounts" ("organization_id", "created_at", "id")`,
      `CREATE UNIQUE INDEX "ux_external_bank_accounts_org_fingerprint" ON "external_bank_accounts" ("organization_id", "fingerprint") WHERE "deleted_at" IS NULL`,
    ],
  },
  {
    name: 'idempotency_records',
    columns: [
      `"id" varchar(48) PRIMARY KEY NOT NULL`,
      `"organization_id" varchar(48) NOT NULL`,
      `"idempotency_key" varchar(255) NOT NULL`,
      `"request_method" varchar(10) NOT NULL`,
      `"request_path" text NOT NULL`,
      `"request_hash" varchar(64) NOT NULL`,
      `"request_id" varchar(128) NOT NULL`,
      `"state" varchar(12) NOT NULL`,
      `"locked_until" datetime`,
      `"response_status" integer`,
      `"response_headers" text`,
      `"response_body" text`,
      `"created_at" datetime NOT NULL`,
      `"expires_at" datetime NOT NULL`,
    ],
    constraints: [organizationKey('idempotency_records')],
    indexes: [
      `CREATE UNIQUE INDEX "ux_idempotency_records_org_key" ON "idempotency_records" ("organization_id", "idempotency_key")`,
      `CREATE INDEX "ix_idempotency_records_expires" ON "idempotency_records" ("expires_at")`,
    ],
  },
];

/**
 * The table again with its rows and indexes, its constraints named or not. The rows wait in a
 * temporary copy while the table is dropped and created again under its own name, so the other
 * tables' foreign keys never point at a renamed table. TypeORM turns foreign keys off before
 * `runMigrations` but not before `undoLastMigration` (it starts the transaction first, where the
 * pragma has no effect), so the checks are deferred to the commit instead: dropping the table
 * counts its children as orphans and inserting the rows back counts them as parented again.
 *
 * The definition stays on one line: TypeORM reads constraint names from the stored CREATE TABLE
 * text with a pattern that expects `CONSTRAINT "name" CHECK (...)` to be followed by `,` or the
 * closing parenthesis.
 */
async function rebuild(q: QueryRunner, table: TableDefinition, named: boolean): Promise<void> {
  const constraints = table.constraints.map(([name, definition]) =>
    named ? `CONSTRAINT "${name}" ${definition}` : definition,
  );
  const list = table.columns.map((c) => c.slice(0, c.indexOf('"', 1) + 1)).join(', ');
  const copy = `"copy_of_${table.name}"`;
  await q.query(`PRAGMA defer_foreign_keys = ON`);
  await q.query(`CREATE TEMP TABLE ${copy} (${table.columns.join(', ')})`);
  await q.query(`INSERT INTO ${copy} (${list}) SELECT ${list} FROM "${table.name}"`);
  await q.query(`DROP TABLE "${table.name}"`);
  await q.query(`CREATE TABLE "${table.name}" (${[...table.columns, ...constraints].join(', ')})`);
  await q.query(`INSERT INTO "${table.name}" (${list}) SELECT ${list} FROM ${copy}`);
  await q.query(`DROP TABLE ${copy}`);
  for (const index of table.indexes) await q.query(index);
}

async function assertForeignKeys(q: QueryRunner): Promise<void> {
  const broken = (await q.query(`PRAGMA foreign_key_check`)) as unknown[];
  if (broken.length > 0) {
    throw new Error(`foreign keys broken after rebuilding tables: ${JSON.stringify(broken)}`);
  }
}
