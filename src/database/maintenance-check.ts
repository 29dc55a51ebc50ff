import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { Database } from './database';

type Settings = { autovacuum: boolean; trackCounts: boolean };

const SETTINGS_SQL =
  `SELECT current_setting('autovacuum')::boolean AS "autovacuum", ` +
  `current_setting('track_counts')::boolean AS "trackCounts"`;

/** PostgreSQL parses the option's value as it would (`off`, `false`, `0`, `no`...). */
const TABLES_OFF_SQL =
  `SELECT c.relname AS "name" FROM pg_class c ` +
  `JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema() ` +
  `CROSS JOIN LATERAL pg_options_to_table(c.reloptions) o ` +
  `WHERE c.relkind IN ('r', 'p') AND o.option_name = 'autovacuum_enabled' ` +
  `AND NOT o.option_value::boolean ORDER BY c.relname`;

/**
 * At start-up on PostgreSQL, warns once when autovacuum does not keep this service's tables
 * analyzed (docs/operations.md, "The database and its migrations"). The webhook queue's tables
 * are written thousands of times a minute, and each connection plans its foreign-key checks from
 * the statistics: planned while a table was nearly empty, a check scans it and keeps scanning as
 * it grows, until an ANALYZE that autovacuum would have run. Nothing is refused: a database
 * analyzed by a scheduled job of its own is a choice this service cannot see. On SQLite nothing is
 * checked: its planner does not plan from the tables' sizes unless ANALYZE was run, and the
 * service never runs it.
 */
@Injectable()
export class MaintenanceCheck implements OnApplicationBootstrap {
  constructor(
    private readonly db: Database,
    private readonly logger: PinoLogger,
  ) {
    logger.setContext('Database');
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.db.isPostgres) return;
    let state: Settings & { tablesOff: string[] };
    try {
      // `trackCounts`: without it autovacuum never starts; `tablesOff`: this service's tables
      // kept out of autovacuum (`autovacuum_enabled = false`).
      const [settings] = await this.db.dataSource.query<Settings[]>(SETTINGS_SQL);
      const tables = await this.db.dataSource.query<{ name: string }[]>(TABLES_OFF_SQL);
      state = { ...settings, tablesOff: tables.map((t) => t.name) };
    } catch (err) {
      // Only advice: where it cannot be read (a restricted role, say), the service starts without.
      this.logger.debug({ err }, 'autovacuum state not read');
      return;
    }
    if (state.autovacuum && state.trackCounts && state.tablesOff.length === 0) return;
    this.logger.warn(
      state,
      "PostgreSQL's autovacuum does not analyze all of this service's tables: query plans made " +
        'while a table was small are kept as it grows, and webhook deliveries can fall behind. ' +
        'Turn it on (autovacuum and track_counts on, no table with autovacuum_enabled = false), ' +
        'or analyze these tables on a schedule of your own (docs/operations.md).',
    );
  }
}
