import '../runtime';
import { DataSource } from 'typeorm';
import { ConfigError, loadConfig } from '../config/app-config';
import { dataSourceOptions } from './data-source-options';

/** `npm run migration:run`: applies pending migrations to DATABASE_URL and exits. */
async function main(): Promise<void> {
  const config = loadConfig();
  const dataSource = new DataSource(dataSourceOptions(config.database));
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    console.log(JSON.stringify({ applied: applied.map((m) => m.name) }));
  } finally {
    await dataSource.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
