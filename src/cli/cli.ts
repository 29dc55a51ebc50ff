import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../auth/api-keys.service';
import { ApiError } from '../common/errors';
import { ConfigError, loadConfig } from '../config/app-config';
import { DatabaseChangeFeed } from '../database/change-feed';
import { dataSourceOptions } from '../database/data-source-options';
import { Database } from '../database/database';

const USAGE = `Usage: npm run -s cli -- <command> [options]

Commands:
  organizations:create --name <name>
  organizations:list
  api-keys:create --organization <org_id> [--mode live|test]
  api-keys:list --organization <org_id>
  api-keys:revoke --id <key_id>

Works on DATABASE_URL (default sqlite:data/billing.sqlite) and prints JSON on its last line.`;

export class UsageError extends Error {}

function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

/** Runs one command and returns what it prints as JSON. */
export async function runCommand(service: ApiKeysService, argv: string[]): Promise<unknown> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      organization: { type: 'string' },
      id: { type: 'string' },
      mode: { type: 'string' },
    },
    strict: true,
  });
  switch (command) {
    case 'organizations:create':
      return service.createOrganization(required(values, 'name'));
    case 'organizations:list':
      return { data: await service.listOrganizations() };
    case 'api-keys:create': {
      const mode = values.mode ?? 'live';
      if (mode !== 'live' && mode !== 'test') throw new UsageError('--mode must be live or test');
      return service.createApiKey(required(values, 'organization'), { mode });
    }
    case 'api-keys:list':
      return { data: await service.listApiKeys(required(values, 'organization')) };
    case 'api-keys:revoke':
      return service.revokeApiKey(required(values, 'id'));
    default:
      throw new UsageError(command ? `Unknown command: ${command}` : 'No command given');
  }
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return argv.length === 0 ? 1 : 0;
  }
  let dataSource: DataSource | undefined;
  try {
    const config = loadConfig();
    dataSource = new DataSource({ ...dataSourceOptions(config.database), migrationsRun: true });
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: 'each' });
    // The feed only announces here (a revocation reaches running instances); it never listens.
    const service = new ApiKeysService(
      new Database(dataSource, config.database.kind),
      new DatabaseChangeFeed(dataSource, config.database.kind),
    );
    const result = await runCommand(service, argv);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || (err instanceof TypeError && 'code' in err)) {
      process.stderr.write(`${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    if (err instanceof ApiError) {
      process.stderr.write(`${err.message}\n`);
      process.stdout.write(
        `${JSON.stringify({ error: err.category, code: err.code, message: err.message })}\n`,
      );
      return 1;
    }
    throw err;
  } finally {
    if (dataSource?.isInitialized) await dataSource.destroy();
  }
}
