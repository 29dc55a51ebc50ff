import { DataSource, EntityManager } from 'typeorm';
import type { CommitHook } from './commit-hook';
import { Database } from './database';

/** A hook that records where it ran, as IdempotencyService's KeyClaim stores an answer. */
function recordingHook() {
  const hook = {
    armed: true,
    runs: [] as unknown[],
    run(manager: EntityManager, result: unknown) {
      hook.runs.push(result);
      return manager.query('INSERT INTO "answers" ("body") VALUES (?)', [JSON.stringify(result)]);
    },
    settle() {
      hook.armed = false;
    },
  };
  return hook satisfies CommitHook;
}

describe('Database.transaction with a commit hook', () => {
  let dataSource: DataSource;
  let db: Database;

  beforeAll(async () => {
    dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    await dataSource.initialize();
    await dataSource.query('CREATE TABLE "answers" ("body" text)');
    await dataSource.query('CREATE TABLE "things" ("name" text)');
    db = new Database(dataSource, 'sqlite');
  });
  afterAll(() => dataSource.destroy());
  beforeEach(async () => {
    await dataSource.query('DELETE FROM "answers"');
    await dataSource.query('DELETE FROM "things"');
  });

  const write = (name: string) => async (m: EntityManager) => {
    await m.query('INSERT INTO "things" ("name") VALUES (?)', [name]);
    return { object: 'thing', name };
  };

  it('runs the hook in the first transaction it is given, once', async () => {
    const hook = recordingHook();
    await db.transaction(write('a'), hook);
    await db.transaction(write('b'), hook);
    expect(hook.runs).toEqual([{ object: 'thing', name: 'a' }]);
    expect(await dataSource.query('SELECT "body" FROM "answers"')).toEqual([
      { body: JSON.stringify({ object: 'thing', name: 'a' }) },
    ]);
  });

  it('rolls the hook back with the work when the transaction fails', async () => {
    const hook = recordingHook();
    await expect(
      db.transaction(async (m) => {
        await write('a')(m);
        throw new Error('fails after the write');
      }, hook),
    ).rejects.toThrow('fails after the write');
    expect(await dataSource.query('SELECT * FROM "things"')).toEqual([]);
    expect(await dataSource.query('SELECT * FROM "answers"')).toEqual([]);
    // Still armed: the next transaction of the request stores its answer.
    expect(hook.armed).toBe(true);
  });

  it('leaves transactions without a hook alone, and a settled hook unused', async () => {
    await db.transaction(write('a'));
    const hook = recordingHook();
    hook.settle();
    await db.transaction(write('b'), hook);
    expect(hook.runs).toEqual([]);
    expect(await dataSource.query('SELECT * FROM "answers"')).toEqual([]);
  });
});
