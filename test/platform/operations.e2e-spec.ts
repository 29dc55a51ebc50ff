import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { hashApiKey } from '../../src/auth/api-keys.service';
import { TEST_ENCRYPTION_KEY } from '../helpers/test-app';
import { TEST_DIALECT, TestDatabase, createTestDatabase } from '../helpers/test-database';
import { runCli, runTs, startServer } from '../helpers/processes';

/** Start-up, configuration, shutdown and the command line, as separate processes. */
describe(`operations (${TEST_DIALECT})`, () => {
  let database: TestDatabase;
  let env: Record<string, string>;

  beforeEach(async () => {
    database = await createTestDatabase();
    env = {
      DATABASE_URL: database.url,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      NODE_ENV: 'development',
    };
  });
  afterEach(() => database.drop());

  async function keyIsLive(apiKey: string): Promise<boolean> {
    const ds = new DataSource(
      database.dialect === 'postgres'
        ? { type: 'postgres', url: database.url }
        : { type: 'better-sqlite3', database: database.url.slice('sqlite:'.length) },
    );
    await ds.initialize();
    try {
      const rows: unknown[] = await ds.query(
        `SELECT id FROM api_keys WHERE key_hash = ${database.dialect === 'postgres' ? '$1' : '?'} AND revoked_at IS NULL`,
        [hashApiKey(apiKey)],
      );
      return rows.length === 1;
    } finally {
      await ds.destroy();
    }
  }

  it('stops with a message naming each bad variable and a non-zero exit', async () => {
    const result = await runTs('src/main.ts', [], {
      ...env,
      PORT: 'abc',
      RATE_LIMIT_PER_SECOND: '-3',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PORT');
    expect(result.stderr).toContain('RATE_LIMIT_PER_SECOND');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('stops with one line naming PORT when the port is taken', async () => {
    const busy = createServer().listen(0, '127.0.0.1');
    await once(busy, 'listening');
    try {
      const port = (busy.address() as AddressInfo).port;
      const result = await runTs('src/main.ts', [], {
        ...env,
        HOST: '127.0.0.1',
        PORT: String(port),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`cannot listen on 127.0.0.1:${port} (EADDRINUSE`);
      expect(result.stderr).toContain('Set PORT');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      busy.close();
    }
  });

  it('stops with two lines naming a PostgreSQL database that does not exist, and how to create it', async () => {
    const server = new URL(
      process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    );
    server.pathname = '/billing_missing_41';
    const result = await runTs('src/main.ts', [], { ...env, DATABASE_URL: server.href });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('the PostgreSQL database "billing_missing_41" does not exist');
    expect(lines[1]).toContain('createdb');
    expect(result.stdout).toBe('');
  });

  it('prints one development key on the first start of an empty database, and never again', async () => {
    const first = await startServer(env);
    expect(await first.stop()).toBe(0);
    const key = /sk_test_[0-9A-Za-z]{32}/.exec(first.output())?.[0];
    expect(key).toBeDefined();
    expect(first.output()).toContain('api-keys:create');
    // The key is a test-mode key, and the message says so (docs/api.md §2).
    expect(first.output()).toContain(`Test-mode API key`);
    expect(first.output()).toContain('it sees only test data');
    expect(await keyIsLive(key!)).toBe(true);

    const second = await startServer(env);
    // What the printed key creates is test data.
    const created = await fetch(`${second.url}/v0/products`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'First product' }),
    });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { livemode: boolean }).livemode).toBe(false);
    expect(await second.stop()).toBe(0);
    expect(second.output()).not.toMatch(/sk_(test|live)_/);
    // It says where a key comes from now.
    expect(second.output()).toContain('No API key is printed');
    expect(second.output()).toContain('api-keys:create');
  });

  it('creates BOOTSTRAP_API_KEY and its organization, and never prints it', async () => {
    const key = 'sk_live_' + 'B'.repeat(32);
    const server = await startServer({
      ...env,
      BOOTSTRAP_API_KEY: key,
      BOOTSTRAP_ORGANIZATION_NAME: 'Acme',
    });
    const res = await fetch(`${server.url}/v0/anything`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(404);
    expect(await server.stop()).toBe(0);
    expect(server.output()).not.toContain(key);
    expect(await keyIsLive(key)).toBe(true);
  });

  it('shuts down on SIGTERM with exit code 0 and says so in the log', async () => {
    const server = await startServer({ ...env, NODE_ENV: 'test' });
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.output()).toContain('SIGTERM received');
    // At info, what happened; Nest's inventory of modules and routes is at debug.
    expect(server.output()).not.toMatch(/Mapped \{|dependencies initialized/);
    expect(server.output()).toContain('Nest application successfully started');
    // The start-up line says where it listens and where the docs are.
    expect(server.output()).toMatch(
      /Listening on [^ ]+:\d+: http:\/\/[^ ]+:\d+ \(API docs: http:\/\/[^ ]+\/docs\)/,
    );
  });

  it('manages organizations and API keys from the command line, printing JSON last', async () => {
    const org = await runCli(['organizations:create', '--name', 'Acme'], env);
    expect(org.code).toBe(0);
    expect(org.json).toMatchObject({ id: expect.stringMatching(/^org_/), name: 'Acme' });

    const key = await runCli(['api-keys:create', '--organization', org.json.id], env);
    expect(key.code).toBe(0);
    expect(key.json).toMatchObject({
      id: expect.stringMatching(/^key_/),
      organizationId: org.json.id,
      apiKey: expect.stringMatching(/^sk_live_[0-9A-Za-z]{32}$/),
    });
    expect(await keyIsLive(key.json.apiKey)).toBe(true);

    const list = await runCli(['api-keys:list', '--organization', org.json.id], env);
    expect(list.json.data).toHaveLength(1);
    expect(JSON.stringify(list.json)).not.toContain(key.json.apiKey);

    const revoked = await runCli(['api-keys:revoke', '--id', key.json.id], env);
    expect(revoked.json.revokedAt).toEqual(expect.any(String));
    expect(await keyIsLive(key.json.apiKey)).toBe(false);

    const missing = await runCli(
      ['api-keys:create', '--organization', 'org_00000000000000000000000000'],
      env,
    );
    expect(missing.code).toBe(1);
    expect(missing.json).toMatchObject({ error: 'not_found' });

    const unknown = await runCli(['bogus'], env);
    expect(unknown.code).toBe(2);
  });

  it('refuses an option given twice, names the field a value breaks, and reports a database it cannot open', async () => {
    const org = await runCli(['organizations:create', '--name', 'Twice Ltd'], env);
    const a = await runCli(['api-keys:create', '--organization', org.json.id], env);
    const b = await runCli(['api-keys:create', '--organization', org.json.id], env);
    /** A usage error: exit 2, saying why on standard error. */
    const refused = async (args: string[], why: string) => {
      const run = await runTs('src/cli/main.ts', args, env);
      expect({ code: run.code, why: run.stderr.includes(why) }).toEqual({ code: 2, why: true });
    };
    // parseArgs alone would revoke the last one and say nothing of the first.
    await refused(
      ['api-keys:revoke', '--id', a.json.id, '--id', b.json.id],
      '--id was given more than once',
    );
    // An option of another command is refused, not ignored.
    await refused(
      ['api-keys:revoke', '--id', a.json.id, '--organization', org.json.id],
      '--organization is not an option of api-keys:revoke',
    );
    await refused(
      ['organizations:list', '--limit', '5'],
      '--limit is not an option of organizations:list',
    );
    await refused([], 'No command given');
    expect(await keyIsLive(a.json.apiKey)).toBe(true);
    expect(await keyIsLive(b.json.apiKey)).toBe(true);

    const blank = await runTs('src/cli/main.ts', ['organizations:create', '--name', '   '], env);
    expect(blank.code).toBe(1);
    expect(JSON.parse(blank.stdout.trim().split('\n').pop()!)).toMatchObject({
      error: 'validation_error',
      errors: [{ field: 'name', message: expect.stringContaining('not blank') }],
    });
    expect(blank.stderr).toMatch(/name: .*not blank/);

    // A folder where the database file should be: the driver cannot open it.
    const folder = mkdtempSync(join(tmpdir(), 'billing-not-a-file-'));
    try {
      const broken = await runTs('src/cli/main.ts', ['organizations:list'], {
        ...env,
        DATABASE_URL: `sqlite:${folder}`,
      });
      expect(broken.code).toBe(1);
      expect(broken.stderr).toMatch(/^The command failed: /);
      expect(broken.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(JSON.parse(broken.stdout.trim().split('\n').pop()!)).toMatchObject({
        error: expect.stringMatching(/^(service_unavailable|internal_error)$/),
        message: expect.any(String),
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 180_000); // ten runs of the command line, each a Node process of its own

  it('lists every organization, newest first, so a lost key can be traced to its own', async () => {
    const first = await runCli(['organizations:create', '--name', 'First Ltd'], env);
    const second = await runCli(['organizations:create', '--name', 'Second Ltd'], env);
    const list = await runCli(['organizations:list'], env);
    expect(list.code).toBe(0);
    const data = list.json.data as { id: string; name: string; object: string }[];
    const ids = data.map((o) => o.id);
    expect(ids).toContain(first.json.id);
    expect(ids.indexOf(second.json.id)).toBeLessThan(ids.indexOf(first.json.id));
    expect(data.find((o) => o.id === first.json.id)).toMatchObject({
      object: 'organization',
      name: 'First Ltd',
    });
  });
});
