import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app.setup';
import { loadConfig } from '../../src/config/app-config';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/**
 * Issue 17, finding 1: the SQLite files (and the generated encryption key) are readable by their
 * owner only, whatever the umask. Always SQLite: the files are the embedded database's.
 */
describe('SQLite database files', () => {
  let root: string;
  let umask: number;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'billing-files-'));
    umask = process.umask(0o000); // the most permissive umask there is
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(root, { recursive: true, force: true });
  });

  it('creates the data folder 0700 and every database file 0600, with a umask of 000', async () => {
    const folder = join(root, 'var', 'data');
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: `sqlite:${join(folder, 'billing.sqlite')}`,
    });
    const app = await createApp(config);
    try {
      await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/readyz' });
      const files = readdirSync(folder);
      expect(files).toEqual(
        expect.arrayContaining([
          'billing.sqlite',
          'billing.sqlite-wal',
          'billing.sqlite-shm',
          'encryption.key',
        ]),
      );
      expect(modeOf(folder).toString(8)).toBe('700');
      expect(modeOf(join(root, 'var')).toString(8)).toBe('700');
      for (const file of files)
        expect([file, modeOf(join(folder, file)).toString(8)]).toEqual([file, '600']);
    } finally {
      await app.close();
    }
  });

  it('narrows a database file that an older version left readable by everyone', async () => {
    const path = join(root, 'old.sqlite');
    const first = await createApp(
      loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: `sqlite:${path}` }),
    );
    await first.close();
    const { chmodSync } = await import('node:fs');
    chmodSync(path, 0o644);
    const again = await createApp(
      loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: `sqlite:${path}` }),
    );
    try {
      expect(modeOf(path).toString(8)).toBe('600');
    } finally {
      await again.close();
    }
  });
});
