import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app.setup';
import { LogCapture, captureLogs } from '../helpers/log-capture';
import { TestApp, startTestApp } from '../helpers/test-app';
import { TEST_DIALECT } from '../helpers/test-database';

/** What MaintenanceCheck logged (its warning, or that it could not check), parsed. */
function autovacuumWarnings(lines: string[]): any[] {
  return lines
    .map((line) => JSON.parse(line))
    .filter((line) => typeof line.msg === 'string' && line.msg.includes('autovacuum'));
}

/**
 * On PostgreSQL an instance warns at start-up when autovacuum does not keep its tables analyzed
 * (docs/operations.md): the server's setting, `track_counts` and each table's own option. The
 * server's `autovacuum` cannot be changed from a test (it is the server's, read at reload), so
 * the test reads it and expects what it says; `track_counts` (per database) and the tables'
 * options are set here, so both sides of those are seen on every machine.
 */
describe(`autovacuum warning at start-up (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let logs: LogCapture;
  const others: NestFastifyApplication[] = [];

  beforeAll(async () => {
    logs = captureLogs();
    t = await startTestApp({ LOG_LEVEL: 'debug' }, { logDestination: logs.destination });
  });
  afterAll(async () => {
    for (const app of others) await app.close();
    await t.close();
  });

  /**
   * Starts one more instance on the suite's database and returns what was logged meanwhile.
   * nestjs-pino's PinoLogger writes to the first logger made in the process, so every instance
   * of this file logs to `logs`.
   */
  const startAnother = async (): Promise<string[]> => {
    const from = logs.lines.length;
    others.push(await createApp(t.config));
    return logs.lines.slice(from);
  };

  if (TEST_DIALECT === 'sqlite') {
    it('checks nothing on SQLite, which has no autovacuum', () => {
      // At debug level a check that ran (and failed on SQLite) would say so too.
      expect(autovacuumWarnings(logs.lines)).toEqual([]);
    });
    return;
  }

  let serverAutovacuum: boolean;
  const databaseName = () => new URL(t.database.url).pathname.slice(1);

  beforeAll(async () => {
    const [row] = await t.dataSource.query(`SELECT current_setting('autovacuum') AS "value"`);
    serverAutovacuum = row.value === 'on';
  });

  it("warns at start-up exactly when the server's autovacuum is off", () => {
    const warnings = autovacuumWarnings(logs.lines);
    if (serverAutovacuum) {
      expect(warnings).toEqual([]);
    } else {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        level: 40,
        context: 'Database',
        autovacuum: false,
        trackCounts: true,
        tablesOff: [],
      });
      expect(warnings[0].msg).toContain('docs/operations.md');
    }
  });

  it('names the tables kept out of autovacuum, and warns when track_counts is off', async () => {
    // Two spellings PostgreSQL takes for false; a table explicitly on is not named.
    await t.dataSource.query(
      `ALTER TABLE "webhook_deliveries" SET (autovacuum_enabled = off, autovacuum_vacuum_scale_factor = 0.05)`,
    );
    await t.dataSource.query(`ALTER TABLE "events" SET (autovacuum_enabled = 'no')`);
    await t.dataSource.query(`ALTER TABLE "plans" SET (autovacuum_enabled = true)`);
    await t.dataSource.query(`ALTER DATABASE "${databaseName()}" SET track_counts = off`);

    const warnings = autovacuumWarnings(await startAnother());
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      level: 40,
      autovacuum: serverAutovacuum,
      trackCounts: false,
      tablesOff: ['events', 'webhook_deliveries'],
    });
  });

  it('says nothing more once the tables and track_counts are back to the defaults', async () => {
    await t.dataSource.query(`ALTER TABLE "webhook_deliveries" RESET (autovacuum_enabled)`);
    await t.dataSource.query(`ALTER TABLE "events" RESET (autovacuum_enabled)`);
    await t.dataSource.query(`ALTER DATABASE "${databaseName()}" RESET track_counts`);

    const warnings = autovacuumWarnings(await startAnother());
    if (serverAutovacuum) {
      expect(warnings).toEqual([]);
    } else {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ autovacuum: false, trackCounts: true, tablesOff: [] });
    }
  });
});
