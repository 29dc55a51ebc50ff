import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AccountNumberVault } from '../../src/external-accounts/account-number-vault';
import { ACCOUNT_KEYS } from '../helpers/external-accounts-factory';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';

/** Account numbers distinctive enough that finding one anywhere means it leaked. */
const SECRETS = {
  us: '918273645546372',
  de: 'DE75512108001245126199',
  gb: '73519086',
  ca: '46290183745',
};

const BODIES: Record<keyof typeof SECRETS, Record<string, unknown>> = {
  us: { countryCode: 'US', currency: 'USD', routingNumber: '110000000' },
  de: { countryCode: 'DE', currency: 'EUR', routingNumber: 'SOGEDEFFXXX' },
  gb: { countryCode: 'GB', currency: 'GBP', routingNumber: '10-88-00' },
  ca: { countryCode: 'CA', currency: 'CAD', routingNumber: '11000-000' },
};

function createBody(kind: keyof typeof SECRETS, extra: Record<string, unknown> = {}) {
  return {
    bankName: 'Secret Bank',
    accountHolderName: 'Jenny Rosen',
    accountHolderType: 'individual',
    accountNumber: SECRETS[kind],
    ...BODIES[kind],
    ...extra,
  };
}

/** Text forms in which a leaked number could sit in storage. */
function leakForms(secret: string): string[] {
  return [secret, secret.toLowerCase(), Buffer.from(secret).toString('base64')];
}

describe(`account numbers stay secret (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  const ids: Record<string, string> = {};
  /** Everything the service logged while this suite ran. */
  const logged: string[] = [];
  let stdoutSpy: jest.SpyInstance;

  beforeAll(async () => {
    // pino writes through process.stdout when its write has been replaced: capture every line.
    stdoutSpy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      logged.push(String(chunk));
      return true;
    });
    t = await startTestApp({ LOG_LEVEL: 'trace' });
    tenant = await t.createTenant('Secrets Inc');
    for (const kind of Object.keys(SECRETS) as (keyof typeof SECRETS)[]) {
      const res = await t
        .http()
        .post('/v0/externalAccounts')
        .set(tenant.auth)
        .send(createBody(kind, { metadata: { kind } }));
      expect(res.status).toBe(201);
      ids[kind] = res.body.id;
    }
    // Updates, failures and a delete: none of them may leave the number anywhere either.
    await t
      .http()
      .patch(`/v0/externalAccounts/${ids.us}`)
      .set(tenant.auth)
      .send({ status: 'new', metadata: { note: 'checked' } })
      .expect(200);
    await t
      .http()
      .patch(`/v0/externalAccounts/${ids.us}`)
      .set(tenant.auth)
      .send({ accountNumber: SECRETS.us })
      .expect(400);
    await t.http().post('/v0/externalAccounts').set(tenant.auth).send(createBody('us')).expect(409);
    await t
      .http()
      .post('/v0/externalAccounts')
      .set(tenant.auth)
      .send(createBody('us', { routingNumber: '110000001' }))
      .expect(400);
    await t
      .http()
      .post('/v0/externalAccounts')
      .set(tenant.auth)
      .send(createBody('de', { countryCode: 'FR' }))
      .expect(400);
    await t.http().delete(`/v0/externalAccounts/${ids.ca}`).set(tenant.auth).expect(200);
  });

  afterAll(async () => {
    await t.close();
    stdoutSpy.mockRestore();
  });

  it('the database holds no account number in plain text, anywhere', async () => {
    if (t.database.dialect === 'sqlite') {
      const file = t.database.url.replace(/^sqlite:/, '');
      // The main file and its write-ahead log: recent rows may sit only in the WAL.
      const files = readdirSync(dirname(file))
        .filter((f) => f.startsWith(basename(file)))
        .map((f) => readFileSync(join(dirname(file), f)));
      const bytes = Buffer.concat(files);
      // The scan reads the rows: every account id is in these bytes.
      for (const id of Object.values(ids)) expect(bytes.includes(Buffer.from(id))).toBe(true);
      expect(bytes.includes(Buffer.from('Secret Bank'))).toBe(true);
      for (const secret of Object.values(SECRETS)) {
        for (const form of leakForms(secret)) {
          expect({ secret, found: bytes.includes(Buffer.from(form)) }).toEqual({
            secret,
            found: false,
          });
          expect(bytes.includes(Buffer.from(form, 'utf16le'))).toBe(false);
        }
      }
    } else {
      const tables: { table_name: string }[] = await t.dataSource.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
      );
      expect(tables.map((r) => r.table_name)).toContain('external_bank_accounts');
      let dump = '';
      for (const { table_name } of tables) {
        const rows: { row: string }[] = await t.dataSource.query(
          `SELECT row_to_json(t)::text AS row FROM "${table_name}" t`,
        );
        dump += rows.map((r) => r.row).join('\n');
      }
      const accounts: Record<string, unknown>[] = await t.dataSource.query(
        `SELECT * FROM "external_bank_accounts"`,
      );
      expect(accounts).toHaveLength(4);
      dump += JSON.stringify(accounts);
      for (const id of Object.values(ids)) expect(dump).toContain(id);
      expect(dump).toContain('Secret Bank');
      for (const secret of Object.values(SECRETS)) {
        for (const form of leakForms(secret)) expect(dump).not.toContain(form);
      }
    }
  });

  it('stores each number encrypted (v1:nonce:ciphertext:tag) and it decrypts to the number', async () => {
    const rows: { id: string; account_number_encrypted: string; last4: string }[] =
      await t.dataSource.query(
        `SELECT "id", "account_number_encrypted", "last4" FROM "external_bank_accounts"`,
      );
    const vault = t.app.get(AccountNumberVault);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [kind, id] of Object.entries(ids)) {
      const row = byId.get(id)!;
      expect(row.account_number_encrypted).toMatch(
        /^v1:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/]+={0,2}:[A-Za-z0-9+/]{22}==$/,
      );
      const secret = SECRETS[kind as keyof typeof SECRETS];
      expect(vault.decrypt(row.account_number_encrypted, id)).toBe(secret);
      expect(row.last4).toBe(secret.slice(-4));
    }
  });

  it('responses show only "****" and the last four characters', async () => {
    const list = await t.http().get('/v0/externalAccounts').set(tenant.auth).expect(200);
    const one = await t.http().get(`/v0/externalAccounts/${ids.de}`).set(tenant.auth).expect(200);
    expect(one.body.accountNumber).toBe('****6199');
    const text = JSON.stringify([list.body, one.body]);
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  });

  it('no log line carries an account number', () => {
    const text = logged.join('');
    // The capture works: requests were logged.
    expect(text).toContain('/v0/externalAccounts');
    for (const secret of Object.values(SECRETS)) {
      for (const form of leakForms(secret)) expect(text).not.toContain(form);
    }
  });

  it('the OpenAPI document shows only redacted account numbers in examples, but for the public test numbers a create example sends', async () => {
    const res = await t.http().get('/docs-json').expect(200);
    const doc = res.body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v0/externalAccounts', '/v0/externalAccounts/{id}']),
    );
    expect(Object.keys(doc.paths['/v0/externalAccounts']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v0/externalAccounts/{id}']).sort()).toEqual([
      'delete',
      'get',
      'patch',
    ]);
    const examples: unknown[] = [];
    const requestExamples: unknown[] = [];
    const walk = (node: unknown, key?: string, found = examples): void => {
      if (Array.isArray(node)) return node.forEach((n) => walk(n, key, found));
      if (typeof node !== 'object' || node === null) return;
      for (const [k, v] of Object.entries(node)) {
        if (key === 'accountNumber' && (k === 'example' || k === 'examples')) found.push(v);
        if (k === 'accountNumber' && typeof v !== 'object') found.push(v);
        walk(v, k === 'properties' ? key : k, k === 'requestBody' ? requestExamples : found);
      }
    };
    walk(doc);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect(example).toMatch(/^\*{4}[A-Z0-9]{4}$/);
    // A create example runs as it is from Swagger UI, so it sends an account number: only the
    // public test numbers (Stripe's US test account, the IBAN of the ISO 13616 examples).
    expect(requestExamples.length).toBeGreaterThan(0);
    for (const example of requestExamples) {
      expect(['000123456789', 'DE89370400440532013000']).toContain(example);
    }
    const schema = doc.components.schemas.ExternalBankAccountResponse;
    // Every key a response has (the same list the API tests check), none more.
    expect(Object.keys(schema.properties).sort()).toEqual([...ACCOUNT_KEYS].sort());
    const update = doc.components.schemas.UpdateExternalAccountDto;
    expect(Object.keys(update.properties).sort()).toEqual(
      ['accountHolderName', 'accountHolderType', 'metadata', 'status'].sort(),
    );
    expect(update.properties.status.enum).toEqual(['new']);
  });
});
