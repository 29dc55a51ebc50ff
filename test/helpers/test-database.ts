import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export type TestDialect = 'sqlite' | 'postgres';

export const TEST_DIALECT: TestDialect =
  process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';

export interface TestDatabase {
  dialect: TestDialect;
  url: string;
  drop(): Promise<void>;
}

function adminUrl(): string {
  return process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}

/**
 * A database of its own for one suite: a fresh SQLite file, or a fresh PostgreSQL database that
 * the real migrations then build. PostgreSQL being unreachable fails the suite; it never skips.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (TEST_DIALECT === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'billing-test-'));
    return {
      dialect: 'sqlite',
      url: `sqlite:${join(dir, 'billing.sqlite')}`,
      drop: () => {
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    };
  }
  const name = `billing_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    dialect: 'postgres',
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: adminUrl() });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
