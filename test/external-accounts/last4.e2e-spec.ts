import { DataSource } from 'typeorm';
import { parseDatabaseUrl } from '../../src/config/app-config';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { postgresMigrations, sqliteMigrations } from '../../src/database/migrations';
import { ExternalBankAccount } from '../../src/external-accounts/entities/external-bank-account.entity';
import { createAccount, uniqueDigits } from '../helpers/external-accounts-factory';
import { TEST_DIALECT, TestDatabase, createTestDatabase } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';

/**
 * Issue 17, finding 7: `last4` never shows more than half of the characters of a short account
 * number (docs/api.md §5.5), in a response or in the stored row; `accountNumber` is "****" + last4.
 */
describe(`last4 of a short account number on ${TEST_DIALECT}`, () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  it.each([
    [4, 2],
    [5, 2],
    [6, 3],
    [7, 3],
    [8, 4],
    [17, 4],
  ])('shows %i-digit numbers by their last %i digits only', async (length, shown) => {
    const accountNumber = uniqueDigits(length);
    const created = await createAccount(t, tenant, { accountNumber });
    const tail = accountNumber.slice(-shown);
    expect({ last4: created.last4, accountNumber: created.accountNumber }).toEqual({
      last4: tail,
      accountNumber: `****${tail}`,
    });
    const read = await t.http().get(`/v0/externalAccounts/${created.id}`).set(tenant.auth);
    expect(read.body.last4).toBe(tail);
    const row = await t.db.read((m) => m.findOneByOrFail(ExternalBankAccount, { id: created.id }));
    expect(row.last4).toBe(tail);
  });
});

describe(`migration 1763700009000 (short last4) on ${TEST_DIALECT}`, () => {
  const NAME = 'ShortLast41763700009000';
  const migrations = TEST_DIALECT === 'postgres' ? postgresMigrations : sqliteMigrations;
  let database: TestDatabase;
  let dataSource: DataSource | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  it('cuts last4 of rows stored before the rule to half of their number, without the key', async () => {
    const config = parseDatabaseUrl(database.url);
    if (typeof config === 'string') throw new Error(config);
    const index = migrations.findIndex((m) => m.name === NAME);
    expect(index).toBeGreaterThan(0);
    dataSource = new DataSource({
      ...dataSourceOptions(config),
      entities: [],
      migrations: migrations.slice(0, index),
    });
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: 'each' });
    const p = (n: number) => (TEST_DIALECT === 'postgres' ? `$${n}` : '?');
    const now = '2025-01-02 03:04:05.678';
    await dataSource.query(
      `INSERT INTO "organizations" ("id", "name", "created_at", "updated_at") VALUES (${p(1)}, 'O', ${p(2)}, ${p(3)})`,
      ['org_1', now, now],
    );
    // The stored last4 of each row as the old code wrote it, and the number's length (the
    // ciphertext of AES-GCM is as long as the number).
    const stored: [string, number, string][] = [
      ['eba_4', 4, '1234'],
      ['eba_5', 5, '2345'],
      ['eba_7', 7, '4567'],
      ['eba_8', 8, '5678'],
      ['eba_22', 22, '5432'],
    ];
    for (const [id, length, last4] of stored) {
      const ciphertext = Buffer.alloc(length, 1).toString('base64');
      await dataSource.query(
        `INSERT INTO "external_bank_accounts" ("id", "organization_id", "country_code",
           "bank_name", "currency", "account_number_encrypted", "last4", "fingerprint",
           "routing_number", "account_holder_name", "account_holder_type", "status",
           "metadata", "created_at", "updated_at")
         VALUES (${[...Array(15).keys()].map((i) => p(i + 1)).join(', ')})`,
        [
          id,
          'org_1',
          'US',
          'Bank',
          'USD',
          `v1:bm9uY2U=:${ciphertext}:dGFn`,
          last4,
          id.padEnd(64, '0'),
          '110000000',
          'Jane Doe',
          'individual',
          'pending',
          '{}',
          now,
          now,
        ],
      );
    }
    await dataSource.destroy();
    dataSource = new DataSource({
      ...dataSourceOptions(config),
      entities: [],
      migrations: migrations.slice(0, index + 1),
    });
    await dataSource.initialize();
    expect((await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name)).toEqual([
      NAME,
    ]);
    const rows: { id: string; last4: string }[] = await dataSource.query(
      `SELECT "id", "last4" FROM "external_bank_accounts" ORDER BY "id"`,
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, r.last4]))).toEqual({
      eba_4: '34',
      eba_5: '45',
      eba_7: '567',
      eba_8: '5678',
      eba_22: '5432',
    });
  });
});
