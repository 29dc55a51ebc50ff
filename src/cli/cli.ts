import 'reflect-metadata';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { AppModule } from '../app.module';
import { ApiKeysService } from '../auth/api-keys.service';
import { ApiError } from '../common/errors';
import { ID_PREFIXES, isIdOf } from '../common/ids';
import { AppConfig, ConfigError, loadConfig } from '../config/app-config';
import { dataSourceOptions } from '../database/data-source-options';
import { Database } from '../database/database';
import { driverCode, isDatabaseUnavailable } from '../database/database-errors';
import { VERIFICATION_FAILURE_REASONS, isFailureReason } from '../external-accounts/account-status';
import {
  MAX_AWAITING_OPERATOR,
  VerificationService,
} from '../external-accounts/verification/verification.service';
import { createLogger } from '../platform/logging';

const USAGE = `Usage: npm run -s cli -- <command> [options]

Commands:
  organizations:create --name <name>
  organizations:list
  api-keys:create --organization <org_id> [--mode live|test]
  api-keys:list --organization <org_id>
  api-keys:revoke --id <key_id>

Live-mode bank-account verification (docs/verification.md):
  external-accounts:pending [--organization <org_id>] [--limit <1-${MAX_AWAITING_OPERATOR}>]
      the live accounts waiting for a decision, oldest first (default limit 100)
      each with its etag: a decision names the etag of the details it is about
  external-accounts:verify --id <eba_id> --etag <etag>
  external-accounts:reject --id <eba_id> --etag <etag> --reason <${VERIFICATION_FAILURE_REASONS.join('|')}>
      refused (ACCOUNT_CHANGED) when the account changed since its etag was listed

Works on DATABASE_URL (default sqlite:data/billing.sqlite) and prints JSON on its last line.`;

const OPTION_NAMES = ['name', 'organization', 'id', 'mode', 'reason', 'limit', 'etag'] as const;
type OptionName = (typeof OPTION_NAMES)[number];

/**
 * The options each command takes. Any other is a usage error: parsed for every command alike,
 * `external-accounts:verify --id … --reason …` verified the account and said nothing of the
 * reason its operator meant for `reject`.
 */
const COMMAND_OPTIONS: Readonly<Record<string, readonly OptionName[]>> = {
  'organizations:create': ['name'],
  'organizations:list': [],
  'api-keys:create': ['organization', 'mode'],
  'api-keys:list': ['organization'],
  'api-keys:revoke': ['id'],
  'external-accounts:pending': ['organization', 'limit'],
  'external-accounts:verify': ['id', 'etag'],
  'external-accounts:reject': ['id', 'etag', 'reason'],
};

function parse(argv: string[]) {
  const [command, ...rest] = argv;
  const { values, tokens } = parseArgs({
    args: rest,
    options: Object.fromEntries(OPTION_NAMES.map((name) => [name, { type: 'string' as const }])),
    strict: true,
    tokens: true,
  });
  const takes = COMMAND_OPTIONS[command] as readonly string[] | undefined;
  if (!takes) throw new UsageError(`Unknown command: ${command}`);
  // parseArgs keeps the last of a repeated option: `--id A --id B` would act on B alone.
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (!takes.includes(token.name)) {
      throw new UsageError(
        `--${token.name} is not an option of ${command}` +
          (takes.length > 0 ? ` (it takes ${takes.map((o) => `--${o}`).join(', ')})` : ''),
      );
    }
    if (seen.has(token.name)) {
      throw new UsageError(`--${token.name} was given more than once; give it once per command`);
    }
    seen.add(token.name);
  }
  return { command, values };
}

export class UsageError extends Error {}

function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

/** Runs one command of organizations and API keys and returns what it prints as JSON. */
async function apiKeysCommand(
  service: ApiKeysService,
  command: string,
  values: Record<string, string | undefined>,
): Promise<unknown> {
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
  }
}

/**
 * Runs one command of the operator's verification routine and returns what it prints: the
 * accounts waiting, or the account after the decision (account numbers redacted as in
 * responses). Each decision records its event with actor `operator`, delivered by webhooks.
 */
async function verificationCommand(
  verification: VerificationService,
  command: string,
  values: Record<string, string | undefined>,
): Promise<unknown> {
  switch (command) {
    case 'external-accounts:pending': {
      const organization = values.organization;
      if (organization !== undefined && !isIdOf(ID_PREFIXES.organization, organization)) {
        throw new UsageError('--organization must be an organization id (org_...)');
      }
      const limit = values.limit === undefined ? 100 : Number(values.limit);
      if (!/^\d+$/.test(values.limit ?? '100') || limit < 1 || limit > MAX_AWAITING_OPERATOR) {
        throw new UsageError(`--limit must be a whole number from 1 to ${MAX_AWAITING_OPERATOR}`);
      }
      return verification.awaitingOperator(organization, limit);
    }
    case 'external-accounts:verify':
      return verification.decideAsOperator(required(values, 'id'), required(values, 'etag'), {
        status: 'verified',
      });
    case 'external-accounts:reject': {
      const reason = required(values, 'reason');
      if (!isFailureReason(reason)) {
        throw new UsageError(`--reason must be one of ${VERIFICATION_FAILURE_REASONS.join(', ')}`);
      }
      return verification.decideAsOperator(required(values, 'id'), required(values, 'etag'), {
        status: 'errored',
        reason,
      });
    }
  }
}

/**
 * Runs `work` in the application's own module graph, as a Nest application context (no HTTP
 * server): a decision records an event, and the webhooks module queues its deliveries in the
 * same transaction only where it is wired in, as it is here. This process does no background
 * work of its own (webhook dispatcher, verification worker, SQLite checkpoint thread, start-up keys): the running service
 * delivers what it queues. Log lines go to standard error; standard output ends with the JSON.
 */
async function withApplication<T>(
  config: AppConfig,
  work: (app: INestApplicationContext) => Promise<T>,
): Promise<T> {
  const quiet: AppConfig = {
    ...config,
    bootstrapApiKey: undefined,
    printDevelopmentKey: false,
    // The running service serves the metrics; a command must not take (or fail on) their port.
    metricsPort: undefined,
    // Its one write needs no checkpoint thread: SQLite checkpoints in the commit, as by default.
    database: { ...config.database, backgroundCheckpoints: false },
    webhooks: { ...config.webhooks, dispatcherEnabled: false },
    verification: { ...config.verification, workerEnabled: false },
  };
  const logger = createLogger(quiet, pino.destination({ fd: 2, sync: true }));
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(quiet, logger), {
    logger: false,
    abortOnError: false,
  });
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) {
    // A usage error like any other (exit 2): asked for, the usage goes to standard output.
    process.stderr.write(`No command given\n\n${USAGE}\n`);
    return 2;
  }
  if (argv[0] === '--help' || argv[0] === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let dataSource: DataSource | undefined;
  try {
    const config = loadConfig();
    const { command, values } = parse(argv);
    let result: unknown;
    if (command.startsWith('external-accounts:')) {
      result = await withApplication(config, (app) =>
        verificationCommand(app.get(VerificationService), command, values),
      );
    } else {
      dataSource = new DataSource({ ...dataSourceOptions(config.database), migrationsRun: true });
      await dataSource.initialize(); // migrationsRun: the schema is brought up to date first
      const service = new ApiKeysService(new Database(dataSource, config.database.kind));
      result = await apiKeysCommand(service, command, values);
    }
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
      // The field errors too (a blank --name says which rule it broke), as the API answers them.
      const fields = (err.errors ?? []).map((e) => `\n  ${e.field}: ${e.message}`).join('');
      process.stderr.write(`${err.message}${fields}\n`);
      process.stdout.write(
        `${JSON.stringify({ error: err.category, code: err.code, message: err.message, errors: err.errors })}\n`,
      );
      return 1;
    }
    // The database unreachable, missing or refusing: one line that says so rather than the
    // driver's stack trace (kept for anything else: a fault of ours), and the JSON last line the
    // command line always prints.
    const message = err instanceof Error ? err.message : String(err);
    const fromDatabase = driverCode(err) !== undefined || isDatabaseUnavailable(err);
    process.stderr.write(
      fromDatabase || !(err instanceof Error)
        ? `The command failed: ${message}\n`
        : `${err.stack ?? message}\n`,
    );
    process.stdout.write(
      `${JSON.stringify({ error: isDatabaseUnavailable(err) ? 'service_unavailable' : 'internal_error', message })}\n`,
    );
    return 1;
  } finally {
    if (dataSource?.isInitialized) await dataSource.destroy();
  }
}
